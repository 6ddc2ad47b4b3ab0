import type { StreamResponse } from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import { reminderEventsOf, reminderPages } from '@a2a-reminders/core';
import type { TaskReminderEvent, TaskReminderRecord } from '@a2a-reminders/proto';
import { ReminderState } from '@a2a-reminders/proto';
import type { Binding } from './cli-args.js';
import { BINDINGS } from './cli-args.js';
import { delegationRequest } from './delegation.js';
import type { DemoCase, DemoReminder } from './demo.js';
import { DEFAULT_TASK_TEXT, DEMO_CASES } from './demo.js';
import {
  describeReminderEvent,
  isTerminal,
  progressOf,
  reminderStateName,
  taskStateName,
} from './format.js';
import { Timeline } from './timeline.js';
import type { WorkerConnection } from './worker-connection.js';
import { connectToWorker } from './worker-connection.js';

/** One worker replica of a deployment sharing one PostgreSQL database. */
export interface Replica {
  /** Its `--replica-id`, e.g. `replica-2`. */
  readonly id: string;
  /** Its agent card URL. */
  readonly cardUrl: string;
}

export interface ReplicaDemoOptions {
  /** The first runs the task; the others accept the reminders. At least two. */
  readonly replicas: readonly Replica[];
  /** Where the timeline goes, one line per call. */
  readonly write: (line: string) => void;
  readonly signal?: AbortSignal;
  /** A hang guard (default 60 000 ms); every step waits on an observed event. */
  readonly timeoutMs?: number;
  readonly taskText?: string;
  readonly cases?: readonly DemoCase[];
}

/** Where one reminder was injected: a replica other than the task's, over one binding. */
export interface InjectRoute {
  readonly replica: Replica;
  readonly binding: Binding;
}

/** One reminder's fate as the caller saw it on the stream, and as each replica lists it. */
export interface ReplicaFate {
  readonly id: string;
  readonly route: InjectRoute;
  /** The state its final event on the first replica's stream names (`expired` → EXPIRED). */
  readonly streamed: string | undefined;
  /** How many final events that stream carried for it; R52 says exactly one. */
  readonly finalEvents: number;
  /** Its state in ListTaskReminders on each replica, in replica order. */
  readonly listed: readonly string[];
  /** The fate the demo's case planned for it, e.g. `DISPLACED by cost-75`. */
  readonly planned: string;
  /** The stream showed exactly one final event, and every replica lists that state. */
  readonly ok: boolean;
}

export interface ReplicaDemoResult {
  readonly taskId: string;
  readonly finalState: string;
  readonly fates: readonly ReplicaFate[];
  readonly problems: readonly string[];
  readonly ok: boolean;
}

/** The first replica's stream runs over this binding; the injects and lists spread over all three. */
const STREAM_BINDING: Binding = 'jsonrpc';

/**
 * Spreads the demo's reminders over every replica but the first (which runs
 * the task) and over every binding, in turn: with three replicas the five
 * reminders go to replica-2 over JSON-RPC, replica-3 over REST, replica-2
 * over gRPC, and so on.
 */
export function injectRoutes(replicas: readonly Replica[], count: number): InjectRoute[] {
  const others = replicas.slice(1);
  if (others.length === 0) throw new Error('the replica demo needs at least two replicas');
  return Array.from({ length: count }, (_, i) => ({
    replica: others[i % others.length] as Replica,
    binding: BINDINGS[i % BINDINGS.length] as Binding,
  }));
}

/** Replica n lists over the nth binding (replica-1 JSON-RPC, replica-2 REST, replica-3 gRPC). */
function listBindingOf(index: number): Binding {
  return BINDINGS[index % BINDINGS.length] as Binding;
}

/**
 * The replica demo (issue 10): delegates a task to the first replica with
 * SendStreamingMessage, injects the demo's reminders over the other replicas
 * while it runs, and prints every reminder event as it arrives on the first
 * replica's stream (R52: events committed on any replica reach the open
 * streams of the replica running the task). It ends by checking that each
 * reminder's final event on that stream names the state every replica lists
 * (R55: the same answer on every replica).
 */
export async function runReplicaDemo(options: ReplicaDemoOptions): Promise<ReplicaDemoResult> {
  const { replicas, write } = options;
  const cases = options.cases ?? DEMO_CASES;
  const sent = cases.flatMap((c) => c.reminders);
  const routeList = injectRoutes(replicas, sent.length);
  const routes = new Map(sent.map((s, i) => [s.reminder.id, routeList[i] as InjectRoute]));
  const runner = replicas[0] as Replica;
  const signal = AbortSignal.any([
    AbortSignal.timeout(options.timeoutMs ?? 60_000),
    ...(options.signal === undefined ? [] : [options.signal]),
  ]);

  const connections = new Map<string, WorkerConnection>();
  const via = (replica: Replica, binding: Binding) =>
    connections.get(`${replica.id} ${binding}`) as WorkerConnection;
  // A timeline per inject route and one for the stream, started together so their clocks agree.
  const labels = [`${runner.id} stream`, ...routeList.map((r) => `${r.replica.id} ${r.binding}`)];
  const width = Math.max(...labels.map((l) => l.length));
  const timelines = new Map(labels.map((l) => [l, new Timeline(l.padEnd(width), write)]));
  const at = (replica: Replica, what: Binding | 'stream') =>
    timelines.get(`${replica.id} ${what}`) as Timeline;
  try {
    // Every connection up front, so the cost alerts go out back to back.
    const wanted: Array<readonly [Replica, Binding]> = [
      [runner, STREAM_BINDING],
      ...routeList.map((r) => [r.replica, r.binding] as const),
      ...replicas.map((replica, i) => [replica, listBindingOf(i)] as const),
    ];
    for (const [replica, binding] of wanted) {
      const key = `${replica.id} ${binding}`;
      if (connections.has(key)) continue;
      connections.set(key, await connectToWorker({ url: replica.cardUrl, binding, headers: {} }));
    }

    write(
      `== replica demo: ${replicas.length} replicas on one database; ${runner.id} runs the task, ` +
        `${replicas
          .slice(1)
          .map((r) => r.id)
          .join(' and ')} accept the reminders`,
    );
    const played = await play({
      stream: via(runner, STREAM_BINDING),
      streamTimeline: at(runner, 'stream'),
      cases,
      taskText: options.taskText ?? DEFAULT_TASK_TEXT,
      inject: async (taskId, { reminder }) => {
        const route = routes.get(reminder.id) as InjectRoute;
        const response = await via(route.replica, route.binding).reminders.injectTaskReminder(
          { taskId, reminder },
          { signal },
        );
        const displaced = response.displacedReminderIds;
        at(route.replica, route.binding).line(
          'inject',
          `${reminder.id} accepted ${reminderStateName(response.record?.state ?? ReminderState.UNSPECIFIED)}` +
            (displaced.length > 0 ? `; displaces ${displaced.join(', ')}` : ''),
        );
      },
      signal,
    });

    const lists: TaskReminderRecord[][] = [];
    for (const [i, replica] of replicas.entries()) {
      const records: TaskReminderRecord[] = [];
      const pages = reminderPages(
        via(replica, listBindingOf(i)).reminders,
        { taskId: played.taskId },
        { signal },
      );
      for await (const page of pages) records.push(...page.reminders);
      lists.push(records);
    }
    return judge(replicas, sent, routes, played, lists, write);
  } finally {
    for (const connection of connections.values()) connection.close();
  }
}

interface Played {
  readonly taskId: string;
  readonly finalState: TaskState | undefined;
  readonly events: readonly TaskReminderEvent[];
}

/**
 * Delegates the task on the stream's replica and plays the cases on their
 * triggers: once the stream carries the task, or once the named reminder
 * reached a turn, as the single-worker demo does.
 */
async function play(run: {
  readonly stream: WorkerConnection;
  readonly streamTimeline: Timeline;
  readonly cases: readonly DemoCase[];
  readonly taskText: string;
  readonly inject: (taskId: string, sent: DemoReminder) => Promise<void>;
  readonly signal: AbortSignal;
}): Promise<Played> {
  const { stream, streamTimeline: timeline } = run;
  const pending = [...run.cases];
  const playCases = async (taskId: string, trigger: (c: DemoCase) => boolean) => {
    for (const demoCase of pending.filter(trigger)) {
      pending.splice(pending.indexOf(demoCase), 1);
      timeline.line('case', demoCase.title);
      for (const sent of demoCase.reminders) await run.inject(taskId, sent);
    }
  };

  const events: TaskReminderEvent[] = [];
  let taskId: string | undefined;
  let finalState: TaskState | undefined;
  const items = stream.client.sendMessageStream(
    delegationRequest(run.taskText),
    stream.requestOptions(run.signal),
  );
  for await (const item of items) {
    if (taskId === undefined) {
      taskId = taskIdOf(item);
      if (taskId === undefined) continue;
      timeline.line(
        'delegate',
        `task ${taskId} "${run.taskText}" (SendStreamingMessage over ${stream.binding})`,
      );
      await playCases(taskId, (c) => c.after === 'subscribed');
    }
    for (const event of reminderEventsOf(item)) {
      events.push(event);
      const { tag, text } = describeReminderEvent(event);
      timeline.line(tag, text);
      if (event.event.case === 'emitted') {
        const id = event.reminderId;
        await playCases(taskId, (c) => c.after !== 'subscribed' && c.after.reached === id);
      }
    }
    const progress = progressOf(item);
    if (progress !== undefined && item.payload?.$case === 'statusUpdate') {
      finalState = progress.state;
      if (isTerminal(progress.state)) timeline.line('state', taskStateName(progress.state));
      else timeline.line('progress', progress.text);
    }
  }
  if (taskId === undefined) throw new Error('the stream ended before it carried the task');
  return { taskId, finalState, events };
}

function taskIdOf(item: StreamResponse): string | undefined {
  const p = item.payload;
  if (p?.$case === 'task') return p.value.id;
  if (p?.$case === 'statusUpdate' || p?.$case === 'artifactUpdate') return p.value.taskId;
  return undefined;
}

function judge(
  replicas: readonly Replica[],
  sent: readonly DemoReminder[],
  routes: ReadonlyMap<string, InjectRoute>,
  played: Played,
  lists: readonly (readonly TaskReminderRecord[])[],
  write: (line: string) => void,
): ReplicaDemoResult {
  const runner = replicas[0]?.id ?? '';
  const fates = sent.map(({ reminder, expected }): ReplicaFate => {
    const final = played.events.filter(
      (e) => e.reminderId === reminder.id && e.event.case !== 'emitted',
    );
    // Each final event is named for the state it ends in: `displaced` → DISPLACED.
    const streamed = final.at(-1)?.event.case?.toUpperCase();
    const listed = lists.map((records) => {
      const record = records.find((r) => r.reminder?.id === reminder.id);
      return record === undefined ? 'MISSING' : reminderStateName(record.state);
    });
    return {
      id: reminder.id,
      route: routes.get(reminder.id) as InjectRoute,
      streamed,
      finalEvents: final.length,
      listed,
      planned: expected.state === 'EXPIRED' ? 'EXPIRED' : `DISPLACED by ${expected.by}`,
      ok: final.length === 1 && listed.every((state) => state === streamed),
    };
  });

  const problems: string[] = [];
  if (played.finalState !== TaskState.TASK_STATE_COMPLETED) {
    problems.push(`the task ended ${taskStateName(played.finalState)}, expected COMPLETED`);
  }
  for (const f of fates.filter((x) => !x.ok)) {
    problems.push(
      `${f.id}: ${f.finalEvents} final event(s) on ${runner}'s stream` +
        `${f.streamed === undefined ? '' : ` (last ${f.streamed})`}; listed ${f.listed.join(', ')}`,
    );
  }

  write(
    `-- fates: ${runner}'s stream, and ListTaskReminders on ` +
      replicas.map((r, i) => `${r.id} (${listBindingOf(i)})`).join(', '),
  );
  const idWidth = Math.max(...fates.map((f) => f.id.length));
  for (const f of fates) {
    const agreed = f.listed.every((s) => s === f.streamed);
    const listed = agreed ? `listed ${f.streamed} on all ${f.listed.length}` : f.listed.join(', ');
    const planned = f.planned.startsWith(f.streamed ?? '-') ? '' : `  (planned: ${f.planned})`;
    write(
      `   ${f.id.padEnd(idWidth)}  accepted by ${f.route.replica.id} over ${f.route.binding.padEnd(7)}` +
        `  stream: ${(f.streamed ?? 'none').padEnd(9)}  ${listed}  ${f.ok ? 'ok' : 'MISMATCH'}${planned}`,
    );
  }
  for (const p of problems) write(`   - ${p}`);
  return {
    taskId: played.taskId,
    finalState: taskStateName(played.finalState),
    fates,
    problems,
    ok: problems.length === 0,
  };
}
