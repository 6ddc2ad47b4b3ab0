import type { TaskStore } from '@a2a-js/sdk/server';
import type { ReminderService } from '@a2a-reminders/core';
import { endAbandonedTask } from '@a2a-reminders/database';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';

/** What a task ended by a restart says in its status message. */
export const INTERRUPTED_REASON =
  'The worker stopped while this task was running (crash or kill) and was restarted; ' +
  "the task's progress in the stopped process was lost, so it ended as FAILED. " +
  'Send the task again to run it afresh.';

/** States in which this worker's executor is running a task, not waiting on the caller. */
const RUNNING_STATES = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'];

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
 * a crashed process from one a live replica is running. Replicas sharing one
 * PostgreSQL database end the tasks of a dead replica by its expired task
 * leases instead (`TaskLeaseKeeper`, R53), with the same `endAbandonedTask`.
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
    const key = { tenant: row.tenant, owner: row.owner, taskId: row.id };
    try {
      if (await endAbandonedTask(key, { taskStore, reminders, reason: INTERRUPTED_REASON, now })) {
        ended += 1;
      }
    } catch (error) {
      console.error(`task reminders: could not end interrupted task ${row.id}`, error);
    }
  }
  return ended;
}
