import type { TaskReminderEvent } from '@a2a-reminders/proto';
import type { Replica } from './worker-process.js';

export type StoreKind = 'postgres' | 'sqlite';

/** A task the database stores SUBMITTED or WORKING. */
export interface OpenTask {
  readonly id: string;
  readonly state: string;
  /** The SDK's `status_last_updated`: each turn's status moves it on. */
  readonly updatedMs: number;
}

/** A row of `a2a_task_leases` (R53), its expiry relative to the database's clock. */
export interface LeaseRow {
  readonly taskId: string;
  readonly holder: string;
  readonly expiresInMs: number;
}

/** The worker processes a matrix runs its faults against, and plain reads of their database. */
export interface Deployment {
  readonly store: StoreKind;
  /** The replicas now (a dead one is replaced by {@link ensureAlive}). */
  readonly replicas: readonly Replica[];
  /** Every replica started, those replaced after they exited included, for their logs. */
  readonly started: readonly Replica[];
  /**
   * How long after the store is back a task with no live execution may
   * still be stored SUBMITTED or WORKING: R72's grace + lease + reap
   * interval on PostgreSQL (R53's lease + reap interval is within it); on
   * SQLite R72's 10 s of save retries.
   */
  readonly stuckBoundMs: number;
  /** Starts a replica again in place of each one that exited; says which. */
  ensureAlive(): Promise<string[]>;
  /** Tasks stored SUBMITTED or WORKING, read with a plain client. */
  openTasks(): Promise<OpenTask[]>;
  /** Every task lease (PostgreSQL; none on SQLite). */
  leases(): Promise<LeaseRow[]>;
  /**
   * The task's committed event batches' events, in commit order (R52);
   * undefined where the store keeps no log (SQLite: one worker, events go
   * straight to its streams).
   */
  eventLog(taskId: string): Promise<TaskReminderEvent[] | undefined>;
  close(): Promise<void>;
}

/** The SDK's states of a task that has not ended. */
export const OPEN_STATES = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'] as const;

/** The events of a task's log, from `a2a_reminder_events` joined to its task row. */
export const EVENT_LOG_SQL = `select e.seq, e.batch
  from a2a_reminder_events e
  join a2a_reminder_tasks t on t.task_key = e.task_key
  where t.task_id = $1
  order by e.seq`;
