import type { Binding } from '@a2a-reminders/client';
import { BINDINGS, delegationRequest } from '@a2a-reminders/client';
import type { DemoCase } from './demo-cases.js';
import { DEFAULT_TASK_TEXT, DEMO_CASES, remindersOf } from './demo-cases.js';
import { followTask } from './demo-loop.js';
import { describeInjected, taskStateLabel } from './format.js';
import { listAllReminders } from './reminder-records.js';
import type { InjectRoute, Replica, ReplicaFate } from './replica-fates.js';
import { judgeReplicaFates, reportReplicaFates } from './replica-fates.js';
import { Timeline } from './timeline.js';
import type { WorkerConnection } from './worker-connection.js';
import { connectToWorker } from './worker-connection.js';

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
  const taskText = options.taskText ?? DEFAULT_TASK_TEXT;
  const sent = remindersOf(cases);
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

    const others = replicas.slice(1).map((r) => r.id);
    write(
      `== replica demo: ${replicas.length} replicas on one database; ${runner.id} runs the task, ` +
        `${others.join(' and ')} accept the reminders`,
    );
    const stream = via(runner, STREAM_BINDING);
    const followed = await followTask({
      items: stream.client.sendMessageStream(
        delegationRequest(taskText),
        stream.requestOptions(signal),
      ),
      timeline: at(runner, 'stream'),
      opened: (taskId) =>
        at(runner, 'stream').line(
          'delegate',
          `task ${taskId} "${taskText}" (SendStreamingMessage over ${stream.binding})`,
        ),
      play: {
        cases,
        inject: async (taskId, { reminder }) => {
          const route = routes.get(reminder.id) as InjectRoute;
          const response = await via(route.replica, route.binding).reminders.injectTaskReminder(
            { taskId, reminder },
            { signal },
          );
          at(route.replica, route.binding).line('inject', describeInjected(reminder, response));
        },
      },
    });

    const lists = [];
    for (const [i, replica] of replicas.entries()) {
      const client = via(replica, listBindingOf(i)).reminders;
      lists.push(await listAllReminders(client, { taskId: followed.taskId }, { signal }));
    }
    const verdict = judgeReplicaFates(runner.id, {
      sent,
      routes,
      finalState: followed.finalState,
      events: followed.events,
      lists,
    });
    reportReplicaFates(
      write,
      `-- fates: ${runner.id}'s stream, and ListTaskReminders on ` +
        replicas.map((r, i) => `${r.id} (${listBindingOf(i)})`).join(', '),
      verdict,
    );
    return {
      taskId: followed.taskId,
      finalState: taskStateLabel(followed.finalState),
      fates: verdict.fates,
      problems: verdict.problems,
      ok: verdict.problems.length === 0,
    };
  } finally {
    for (const connection of connections.values()) connection.close();
  }
}
