import type { TaskReminderEvent } from '@a2a-reminders/proto';
import { TaskReminderEventBatchSchema } from '@a2a-reminders/proto';
import { fromBinary } from '@bufbuild/protobuf';
import type { ClientBase } from 'pg';

/** A task's event log as the store committed it (R52): batch positions and their events. */
export interface LoggedEvents {
  /** The batches' positions, in order. */
  readonly seqs: readonly number[];
  /** Every event of every batch, in commit order. */
  readonly events: readonly TaskReminderEvent[];
}

/**
 * Reads a task's committed event batches straight from `a2a_reminder_events`
 * (the table the replicas deliver from), in commit order. The tests own
 * their database, so a task id names one task.
 */
export async function readEventLog(db: ClientBase, taskId: string): Promise<LoggedEvents> {
  const { rows } = await db.query<{ seq: string; batch: Uint8Array }>(
    `select e.seq, e.batch
    from a2a_reminder_events e
    join a2a_reminder_tasks t on t.task_key = e.task_key
    where t.task_id = $1
    order by e.seq`,
    [taskId],
  );
  return {
    seqs: rows.map((r) => Number(r.seq)),
    events: rows.flatMap((r) => fromBinary(TaskReminderEventBatchSchema, r.batch).events),
  };
}
