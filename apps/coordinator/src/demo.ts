import type { StreamResponse, Task } from '@a2a-js/sdk';
import { Role, TaskState } from '@a2a-js/sdk';
import { reminderEventsOf, reminderPages } from '@a2a-reminders/core';
import type {
  InjectTaskReminderRequestSchema,
  TaskReminderEvent,
  TaskReminderRecord,
} from '@a2a-reminders/proto';
import { ReminderState } from '@a2a-reminders/proto';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { Connection } from './cli-args.js';
import { delegationRequest } from './delegation.js';
import {
  describeRecord,
  describeReminderEvent,
  isTerminal,
  progressOf,
  reminderStateName,
  taskStateName,
  textOf,
} from './format.js';
import { Timeline } from './timeline.js';
import type { WorkerConnection } from './worker-connection.js';
import { connectToWorker } from './worker-connection.js';

export const DEFAULT_TASK_TEXT =
  'Add retry with exponential backoff to the HTTP client in src/http/client.ts';

type ReminderInit = NonNullable<
  MessageInitShape<typeof InjectTaskReminderRequestSchema>['reminder']
>;

/** One reminder the demo sends and the fate it expects for it. */
export interface DemoReminder {
  readonly reminder: ReminderInit & { readonly id: string; readonly body: string };
  readonly expected:
    | { readonly state: 'EXPIRED'; readonly by: 'ttl' }
    | { readonly state: 'DISPLACED'; readonly by: string };
}

/** One of the proposal's cases: what happened upstream, and the reminders it becomes. */
export interface DemoCase {
  readonly title: string;
  /** Played once the stream is open, or once the named reminder has reached a turn. */
  readonly after: 'subscribed' | { readonly reached: string };
  readonly reminders: readonly DemoReminder[];
}

/**
 * The proposal's three cases, chained on observed events rather than on
 * sleeps, so the demo holds at any `--turn-ms`: the rebase reminder goes out
 * when the stream is open, the CI event when the rebase reached a turn, the
 * cost alerts when the CI event did. The cases cover the three roleHint forms:
 * none (the worker falls back to a system message), `system` and `developer`.
 */
export const DEMO_CASES: readonly DemoCase[] = [
  {
    title: 'upstream PR #4521 merged into main: remind the worker to rebase',
    after: 'subscribed',
    reminders: [
      {
        reminder: {
          id: 'upstream-pr-4521',
          body: 'Upstream PR #4521 (shared retry helpers) was merged into main. Rebase your branch before you push.',
          dedupeKey: 'upstream-main',
          ttlTurns: 2,
          source: 'repo-watcher',
        },
        expected: { state: 'EXPIRED', by: 'ttl' },
      },
    ],
  },
  {
    title: 'CI finished on the branch: forward the result',
    after: { reached: 'upstream-pr-4521' },
    reminders: [
      {
        reminder: {
          id: 'ci-run-88',
          body: 'CI run 88 on branch retry-backoff: 2 tests failing in test/http/retry.test.ts.',
          dedupeKey: 'ci:retry-backoff',
          ttlTurns: 1,
          source: 'ci',
          roleHint: 'developer',
        },
        expected: { state: 'EXPIRED', by: 'ttl' },
      },
    ],
  },
  {
    title: 'the cost monitor fires three times in a row: only the latest may reach the worker',
    after: { reached: 'ci-run-88' },
    reminders: [50, 75, 90].map((percent, i, all): DemoReminder => {
      const next = all[i + 1];
      return {
        reminder: {
          id: `cost-${percent}`,
          body:
            `Cost monitor: ${percent}% of this task's $5.00 budget is spent.` +
            (percent >= 90 ? ' Wrap up now.' : ''),
          dedupeKey: 'cost-budget',
          ttlTurns: 1,
          source: 'cost-monitor',
          roleHint: 'system',
        },
        expected:
          next === undefined
            ? { state: 'EXPIRED', by: 'ttl' }
            : { state: 'DISPLACED', by: `cost-${next}` },
      };
    }),
  },
];

export interface DemoOptions {
  readonly connection: Connection;
  /** Where the timeline goes, one line per call. */
  readonly write: (line: string) => void;
  readonly taskText?: string;
  readonly timeoutMs?: number;
  readonly cases?: readonly DemoCase[];
}

/** What happened to one reminder, and whether that is what the demo expected. */
export interface ReminderOutcome {
  readonly id: string;
  readonly state: string;
  readonly expected: string;
  readonly firstTurn: number | undefined;
  readonly displacedBy: string;
  /** Turns at which the stream reported the reminder reaching the model. */
  readonly reachedTurns: readonly number[];
  /** The last event the stream carried for it, e.g. `expired`. */
  readonly lastEvent: string | undefined;
  /** For EXPIRED: whether its TTL ran out (false when the task's end expired it). */
  readonly expiredByTtl: boolean | undefined;
  readonly ok: boolean;
}

export interface DemoResult {
  readonly binding: Connection['binding'];
  readonly taskId: string;
  readonly finalState: string;
  readonly outcomes: readonly ReminderOutcome[];
  /** Every reminder event the stream carried, in order. */
  readonly events: readonly TaskReminderEvent[];
  /** User messages in the task's history after it ended (GetTask). */
  readonly userMessagesInHistory: number;
  /** Ids of reminders whose body shows up anywhere in the task's history. */
  readonly remindersInHistory: readonly string[];
  readonly problems: readonly string[];
  readonly ok: boolean;
}

/**
 * The `demo` subcommand: delegates a coding task, subscribes to its stream
 * and plays the proposal's cases while it runs, printing a timeline, then
 * checks every reminder's fate (ListTaskReminders) and the task's history.
 */
export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const cases = options.cases ?? DEMO_CASES;
  const timeline = new Timeline(options.connection.binding, options.write);
  const abort = AbortSignal.timeout(options.timeoutMs ?? 120_000);
  const worker = await connectToWorker(options.connection);
  try {
    timeline.plain(
      `== demo over ${options.connection.binding}: ${worker.card.name} at ${worker.endpoint}`,
    );
    return await play(worker, cases, options.taskText ?? DEFAULT_TASK_TEXT, timeline, abort);
  } finally {
    worker.close();
  }
}

async function play(
  worker: WorkerConnection,
  cases: readonly DemoCase[],
  taskText: string,
  timeline: Timeline,
  signal: AbortSignal,
): Promise<DemoResult> {
  const sent = await worker.client.sendMessage(
    delegationRequest(taskText),
    worker.requestOptions(signal),
  );
  if (!('status' in sent)) throw new Error('the worker answered with a message, not a task');
  const taskId = sent.id;
  timeline.line(
    'delegate',
    `task ${taskId} "${taskText}" (${taskStateName(sent.status?.state)}, returnImmediately)`,
  );

  const events: TaskReminderEvent[] = [];
  const pending = [...cases];
  let finalState = sent.status?.state;

  const playCases = async (trigger: (c: DemoCase) => boolean) => {
    for (const demoCase of pending.filter(trigger)) {
      pending.splice(pending.indexOf(demoCase), 1);
      timeline.line('case', demoCase.title);
      for (const { reminder } of demoCase.reminders) {
        const response = await worker.reminders.injectTaskReminder(
          { taskId, reminder },
          { signal },
        );
        const displaced = response.displacedReminderIds;
        const details = [
          reminder.dedupeKey ? `dedupe ${reminder.dedupeKey}` : undefined,
          `ttl ${response.record?.reminder?.ttlTurns ?? '?'}`,
          reminder.roleHint ? `roleHint ${reminder.roleHint}` : 'no roleHint',
        ].filter((d) => d !== undefined);
        timeline.line(
          'inject',
          `${reminder.id} accepted ${reminderStateName(response.record?.state ?? ReminderState.UNSPECIFIED)} (${details.join(', ')})` +
            (displaced.length > 0 ? `; displaces ${displaced.join(', ')}` : ''),
        );
      }
    }
  };

  const stream = worker.client.resubscribeTask(
    { tenant: '', id: taskId },
    worker.requestOptions(signal),
  );
  let subscribed = false;
  for await (const item of stream) {
    if (!subscribed) {
      subscribed = true;
      // The first item is the task's snapshot: from here on no event is missed.
      timeline.line('subscribe', `SubscribeToTask open (task ${taskStateName(stateOf(item))})`);
      await playCases((c) => c.after === 'subscribed');
    }
    for (const event of reminderEventsOf(item)) {
      events.push(event);
      const { tag, text } = describeReminderEvent(event);
      timeline.line(tag, text);
      if (event.event.case === 'emitted') {
        const id = event.reminderId;
        await playCases((c) => c.after !== 'subscribed' && c.after.reached === id);
      }
    }
    const progress = progressOf(item);
    if (progress !== undefined && item.payload?.$case === 'statusUpdate') {
      finalState = progress.state;
      const tag = isTerminal(progress.state) ? 'state' : 'progress';
      const text = isTerminal(progress.state)
        ? `${taskStateName(progress.state)}${progress.text ? `: ${progress.text}` : ''}`
        : progress.text;
      timeline.line(tag, text);
    }
    if (item.payload?.$case === 'artifactUpdate') {
      timeline.line('artifact', `${item.payload.value.artifact?.name ?? 'artifact'} published`);
    }
  }

  // A stream cut short leaves the task's end unobserved; ask for it.
  const task = await waitForEnd(worker, taskId, signal);
  finalState = task.status?.state ?? finalState;
  const reminders: TaskReminderRecord[] = [];
  for await (const page of reminderPages(worker.reminders, { taskId }, { signal })) {
    reminders.push(...page.reminders);
  }
  return judge(worker, cases, taskId, taskText, task, finalState, reminders, events, timeline);
}

function judge(
  worker: WorkerConnection,
  cases: readonly DemoCase[],
  taskId: string,
  taskText: string,
  task: Task,
  finalState: TaskState | undefined,
  records: readonly TaskReminderRecord[],
  events: readonly TaskReminderEvent[],
  timeline: Timeline,
): DemoResult {
  const problems: string[] = [];
  const sentReminders = cases.flatMap((c) => c.reminders);
  const outcomes = sentReminders.map((sent) =>
    outcomeOf(
      sent,
      records.find((r) => r.reminder?.id === sent.reminder.id),
      events,
    ),
  );
  for (const o of outcomes) {
    if (o.ok) continue;
    if (o.state === 'DISPLACED' && o.reachedTurns.length > 0) {
      // The fate is right but the collapse failed: a turn boundary fell between the alerts.
      problems.push(
        `${o.id} reached turn ${o.reachedTurns[0]} before it was displaced: the alerts took ` +
          'longer than one turn to send (give the worker a larger --turn-ms)',
      );
    } else {
      problems.push(`${o.id} ended ${o.state}, expected ${o.expected}`);
    }
  }
  if (finalState !== TaskState.TASK_STATE_COMPLETED) {
    problems.push(`the task ended ${taskStateName(finalState)}, expected COMPLETED`);
  }
  for (const c of cases) {
    if (c.reminders.every((r) => !events.some((e) => e.reminderId === r.reminder.id))) {
      problems.push(`case not played: ${c.title}`);
    }
  }

  // Reminders are ambient: the history must hold the delegation as its only
  // user message and no reminder text at all (spec: Rendering).
  const users = task.history.filter((m) => m.role === Role.ROLE_USER);
  if (users.length !== 1 || textOf(users[0]) !== taskText) {
    problems.push(`history holds ${users.length} user messages, expected only the delegation`);
  }
  const remindersInHistory = sentReminders
    .filter(({ reminder }) => task.history.some((m) => textOf(m).includes(reminder.body)))
    .map(({ reminder }) => reminder.id);
  if (remindersInHistory.length > 0) {
    problems.push(`reminder text found in the task's history: ${remindersInHistory.join(', ')}`);
  }

  timeline.plain(
    `-- summary over ${worker.binding}: task ${taskId} ended ${taskStateName(finalState)}`,
  );
  for (const record of records) {
    const o = outcomes.find((x) => x.id === record.reminder?.id);
    const verdict = o === undefined ? '' : `  expected ${o.expected}: ${o.ok ? 'ok' : 'WRONG'}`;
    timeline.plain(`   ${describeRecord(record)}${verdict}`);
  }
  timeline.plain(
    `   history: ${users.length} user message(s), ${task.history.length} in all; ` +
      `reminder text in history: ${remindersInHistory.length === 0 ? 'none' : remindersInHistory.join(', ')}`,
  );
  const ok = problems.length === 0;
  timeline.plain(
    ok
      ? '   result: every reminder reached its expected fate'
      : `   result: FAILED\n${problems.map((p) => `   - ${p}`).join('\n')}`,
  );

  return {
    binding: worker.binding,
    taskId,
    finalState: taskStateName(finalState),
    outcomes,
    events,
    userMessagesInHistory: users.length,
    remindersInHistory,
    problems,
    ok,
  };
}

function outcomeOf(
  sent: DemoReminder,
  record: TaskReminderRecord | undefined,
  events: readonly TaskReminderEvent[],
): ReminderOutcome {
  const id = sent.reminder.id;
  const own = events.filter((e) => e.reminderId === id);
  const reachedTurns = own.flatMap((e) => (e.event.case === 'emitted' ? [e.event.value.turn] : []));
  const expiredEvent = own.find((e) => e.event.case === 'expired');
  const expiredByTtl =
    expiredEvent?.event.case === 'expired' ? !expiredEvent.event.value.taskEnded : undefined;
  const state = record === undefined ? 'MISSING' : reminderStateName(record.state);
  const lastEvent = own.at(-1)?.event.case;
  let ok: boolean;
  let expected: string;
  if (sent.expected.state === 'EXPIRED') {
    expected = 'EXPIRED (TTL used up)';
    ok = state === 'EXPIRED' && expiredByTtl === true && reachedTurns.length === 1;
  } else {
    expected = `DISPLACED by ${sent.expected.by}`;
    // Collapsed: displaced before any turn, so the worker never saw it.
    ok =
      state === 'DISPLACED' &&
      record?.displacedBy === sent.expected.by &&
      reachedTurns.length === 0 &&
      lastEvent === 'displaced';
  }
  return {
    id,
    state,
    expected,
    firstTurn: record?.firstTurn,
    displacedBy: record?.displacedBy ?? '',
    reachedTurns,
    lastEvent,
    expiredByTtl,
    ok,
  };
}

function stateOf(item: StreamResponse): TaskState | undefined {
  const p = item.payload;
  if (p?.$case === 'task') return p.value.status?.state;
  if (p?.$case === 'statusUpdate') return p.value.status?.state;
  return undefined;
}

async function waitForEnd(
  worker: WorkerConnection,
  taskId: string,
  signal: AbortSignal,
): Promise<Task> {
  for (;;) {
    const task = await worker.client.getTask(
      { tenant: '', id: taskId },
      worker.requestOptions(signal),
    );
    if (isTerminal(task.status?.state)) return task;
    await new Promise((resolve) => setTimeout(resolve, 100));
    signal.throwIfAborted();
  }
}
