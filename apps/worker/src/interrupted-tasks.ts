import type { Task } from '@a2a-js/sdk';
import { Role, SendMessageRequest, TaskState } from '@a2a-js/sdk';
import type { TaskStore, User } from '@a2a-js/sdk/server';
import { DefaultExecutionEventBus, RequestContext, ServerCallContext } from '@a2a-js/sdk/server';
import type { ReminderService } from '@a2a-reminders/core';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { textMessage } from './text-message.js';

/** What a task ended by a restart says in its status message. */
export const INTERRUPTED_REASON =
  'The worker stopped while this task was running (crash or kill) and was restarted; ' +
  "the task's progress in the stopped process was lost, so it ended as FAILED. " +
  'Send the task again to run it afresh.';

/** States in which this worker's executor is running a task, not waiting on the caller. */
const RUNNING_STATES = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'];

/** The stored user a task row names, so the SDK's and core's owner resolver find the same scope. */
class StoredOwner implements User {
  constructor(readonly userName: string) {}
  get isAuthenticated(): boolean {
    return false;
  }
}

/**
 * Ends the tasks a previous run of the worker left running: after a crash
 * no process runs their loop, so they would stay WORKING forever and their
 * reminders live forever. Each is ended FAILED with {@link INTERRUPTED_REASON}
 * in its status message, its reminders first (R27: DROPPED if never surfaced,
 * EXPIRED if they were), so every reminder reaches a final state.
 *
 * Why not resume: the agent's loop state (steps taken, the model's context)
 * lives only in the stopped process, and the SDK has no way to reattach an
 * execution to a stored task without a new user message. Re-running turns
 * without that state would redo work blindly; a visible FAILED lets the
 * caller decide. Both steps are idempotent, so a crash during recovery is
 * recovered by the next start.
 *
 * Run it before serving, with one worker per store: it cannot tell a task of
 * a crashed process from one a live replica is running.
 */
export async function endInterruptedTasks(options: {
  readonly db: Kysely<unknown>;
  readonly taskStore: TaskStore;
  readonly reminders: Pick<ReminderService, 'endTask'>;
  readonly now?: () => Date;
}): Promise<number> {
  const { db, taskStore, reminders } = options;
  const now = options.now ?? (() => new Date());
  // The SDK's task table (its schema): one scan at start-up, no index needed.
  const { rows } = await sql<{ tenant: string; owner: string; id: string }>`
    select tenant, owner, id from tasks
    where status_state in (${sql.join(RUNNING_STATES)})`.execute(db);
  let ended = 0;
  for (const row of rows) {
    // One task that cannot be recovered (an unreadable row, a failed save)
    // must not keep the worker from starting: it is reported and left as is.
    try {
      if (await endInterrupted(row, taskStore, reminders, now)) ended += 1;
    } catch (error) {
      console.error(`task reminders: could not end interrupted task ${row.id}`, error);
    }
  }
  return ended;
}

async function endInterrupted(
  row: { readonly tenant: string; readonly owner: string; readonly id: string },
  taskStore: TaskStore,
  reminders: Pick<ReminderService, 'endTask'>,
  now: () => Date,
): Promise<boolean> {
  const context = new ServerCallContext({
    user: new StoredOwner(row.owner),
    ...(row.tenant === '' ? {} : { tenant: row.tenant }),
    requestedVersion: '1.0',
  });
  const task = await taskStore.load(row.id, context);
  if (task === undefined) return false;
  const requestContext = new RequestContext(
    SendMessageRequest.fromJSON({
      message: { messageId: 'restart', role: 'ROLE_USER', parts: [] },
    }),
    task.id,
    task.contextId,
    context,
    task,
  );
  // No subscriber survived the crash: the events go to a bus nobody reads,
  // and the records carry the fates (ListTaskReminders).
  await reminders.endTask(
    requestContext,
    new DefaultExecutionEventBus(),
    TaskState.TASK_STATE_FAILED,
  );
  await taskStore.save(failed(task, now()), context);
  return true;
}

function failed(task: Task, at: Date): Task {
  return {
    ...task,
    status: {
      state: TaskState.TASK_STATE_FAILED,
      timestamp: at.toISOString(),
      message: textMessage(
        Role.ROLE_AGENT,
        { taskId: task.id, contextId: task.contextId },
        INTERRUPTED_REASON,
      ),
    },
  };
}
