import type { Task } from '@a2a-js/sdk';
import { delegationRequest } from '@a2a-reminders/client';
import { isTerminalState } from '@a2a-reminders/core';
import type { TaskReminderEvent } from '@a2a-reminders/proto';
import type { Connection } from './cli-args.js';
import type { DemoCase } from './demo-cases.js';
import { DEFAULT_TASK_TEXT, DEMO_CASES } from './demo-cases.js';
import { followTask } from './demo-loop.js';
import type { ReminderOutcome } from './demo-oracle.js';
import { judgeDemo } from './demo-oracle.js';
import { reportDemo } from './demo-report.js';
import { describeInjected, taskStateLabel } from './format.js';
import { listAllReminders } from './reminder-records.js';
import { taskStateOf } from './stream-items.js';
import { Timeline } from './timeline.js';
import { withWorker } from './with-worker.js';
import type { WorkerConnection } from './worker-connection.js';

export interface DemoOptions {
  readonly connection: Connection;
  /** Where the timeline goes, one line per call. */
  readonly write: (line: string) => void;
  readonly taskText?: string;
  readonly timeoutMs?: number;
  readonly cases?: readonly DemoCase[];
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
 * The `demo` subcommand: delegates a coding task (SendMessage with
 * `returnImmediately`), follows it with SubscribeToTask and plays the
 * proposal's cases while it runs, printing a timeline; then checks every
 * reminder's fate (ListTaskReminders) and the task's history (GetTask).
 */
export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const cases = options.cases ?? DEMO_CASES;
  const taskText = options.taskText ?? DEFAULT_TASK_TEXT;
  const { binding } = options.connection;
  const timeline = new Timeline(binding, options.write);
  const signal = AbortSignal.timeout(options.timeoutMs ?? 120_000);
  return withWorker(options.connection, async (worker) => {
    timeline.plain(`== demo over ${binding}: ${worker.card.name} at ${worker.endpoint}`);
    const sent = await worker.client.sendMessage(
      delegationRequest(taskText),
      worker.requestOptions(signal),
    );
    if (!('status' in sent)) throw new Error('the worker answered with a message, not a task');
    timeline.line(
      'delegate',
      `task ${sent.id} "${taskText}" (${taskStateLabel(sent.status?.state)}, returnImmediately)`,
    );

    const followed = await followTask({
      items: worker.client.resubscribeTask(
        { tenant: '', id: sent.id },
        worker.requestOptions(signal),
      ),
      timeline,
      // The first item is the task's snapshot: from here on no event is missed.
      opened: (_, item) =>
        timeline.line(
          'subscribe',
          `SubscribeToTask open (task ${taskStateLabel(taskStateOf(item))})`,
        ),
      play: {
        cases,
        inject: async (taskId, { reminder }) => {
          const response = await worker.reminders.injectTaskReminder(
            { taskId, reminder },
            { signal },
          );
          timeline.line('inject', describeInjected(reminder, response));
        },
      },
    });

    // A stream cut short leaves the task's end unobserved; ask for it.
    const task = await waitForEnd(worker, sent.id, signal);
    const finalState = task.status?.state ?? followed.finalState;
    const records = await listAllReminders(worker.reminders, { taskId: sent.id }, { signal });
    const verdict = judgeDemo({
      cases,
      taskText,
      task,
      finalState,
      records,
      events: followed.events,
    });
    reportDemo(timeline, {
      binding,
      taskId: sent.id,
      finalState: taskStateLabel(finalState),
      records,
      historyLength: task.history.length,
      verdict,
    });
    return {
      binding,
      taskId: sent.id,
      finalState: taskStateLabel(finalState),
      outcomes: verdict.outcomes,
      events: followed.events,
      userMessagesInHistory: verdict.userMessages,
      remindersInHistory: verdict.remindersInHistory,
      problems: verdict.problems,
      ok: verdict.problems.length === 0,
    };
  });
}

/** GetTask until the task is terminal: its final state and history. */
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
    if (isTerminalState(task.status?.state)) return task;
    await new Promise((resolve) => setTimeout(resolve, 100));
    signal.throwIfAborted();
  }
}
