import type { Generated, Selectable } from 'kysely';

/** The table holding one row per task that has reminder state: its lock, counters and end mark. */
export const REMINDER_TASKS_TABLE = 'a2a_reminder_tasks';
/** The table holding one row per retained reminder record. */
export const REMINDERS_TABLE = 'a2a_reminders';
/** The log of each task's committed event batches, for replicas (R52, R54). */
export const REMINDER_EVENTS_TABLE = 'a2a_reminder_events';
/** One lease per task execution running on some replica (R53). */
export const TASK_LEASES_TABLE = 'a2a_task_leases';
/** Kysely's migration ledger for this package's tables. */
export const REMINDER_MIGRATIONS_TABLE = 'a2a_reminders_migrations';
/** Kysely's migration lock for this package's tables. */
export const REMINDER_MIGRATIONS_LOCK_TABLE = 'a2a_reminders_migrations_lock';

/**
 * Integers the drivers read back as strings: PostgreSQL's `bigint` comes
 * back from `pg` as a string; SQLite gives numbers.
 */
export type DbInteger = number | string;

/**
 * One task's reminder state. Every transaction on the task locks this row
 * first, so it is the unit of atomicity across processes (R19).
 */
export interface ReminderTaskTable {
  /** Surrogate key; the reminders table refers to the task by it. */
  task_key: Generated<DbInteger>;
  tenant: string;
  owner: string;
  task_id: string;
  /** Turn boundaries taken so far. */
  turn: Generated<number>;
  /** Last acceptance sequence number given out (R48, R49); never goes back. */
  last_seq: Generated<DbInteger>;
  /** Last position given out in the order records became final (R48). */
  last_final_seq: Generated<DbInteger>;
  /** Live records now; a turn boundary with none reads no reminder row. */
  live_count: Generated<number>;
  /** Final records now; a purge runs only when it exceeds the cap (R48). */
  final_count: Generated<number>;
  /** R27: the terminal A2A state once the task's reminders were ended. */
  ended_task_state: string | null;
  ended_time_ms: DbInteger | null;
  /** R35: when the task's records may be deleted. */
  purge_after_ms: DbInteger | null;
  /** Last event batch position given out (R52); never goes back. */
  last_event_seq: Generated<DbInteger>;
}

/** A task row as read. */
export type ReminderTaskRow = Selectable<ReminderTaskTable>;

/** One reminder record, its columns named after core's StoredReminder. */
export interface ReminderRow {
  task_key: DbInteger;
  id: string;
  seq: DbInteger;
  /** Position in the order records became final; null while live (R48). */
  final_seq: DbInteger | null;
  state: string;
  body: string;
  dedupe_key: string;
  ttl_turns: number;
  role_hint: string;
  source: string;
  /** The metadata Struct as JSON text, or null when the reminder has none. */
  metadata: string | null;
  create_time_ms: DbInteger;
  end_time_ms: DbInteger | null;
  first_turn: number | null;
  turns_surfaced: number;
  displaced_by: string | null;
  /** JSON array of the ids the first InjectTaskReminder answer displaced (R13). */
  accepted_displaced_ids: string;
  accepted_task_state: string;
  /** The ReminderProvenance as ProtoJSON text, or null when the reminder has none (R58). */
  provenance: string | null;
  /** JSON array of the record's forwarded copies (core's StoredForward, R63), or null. */
  forwards: string | null;
}

/** One committed event batch of a task (R52). */
export interface ReminderEventRow {
  task_key: DbInteger;
  /** The batch's position in the task's commit order, 1, 2, … */
  seq: DbInteger;
  /** A TaskReminderEventBatch, protobuf binary. */
  batch: Uint8Array;
  create_time_ms: DbInteger;
}

/** The lease of one running task execution (R53). */
export interface TaskLeaseRow {
  tenant: string;
  owner: string;
  task_id: string;
  /** The replica running the execution. */
  holder: string;
  /** Epoch ms, on the database's clock, after which another replica may end the task. */
  expires_ms: DbInteger;
}

/** The schema this package owns; Kysely checks column names against it. */
export interface ReminderDatabase {
  [REMINDER_TASKS_TABLE]: ReminderTaskTable;
  [REMINDERS_TABLE]: ReminderRow;
  [REMINDER_EVENTS_TABLE]: ReminderEventRow;
  [TASK_LEASES_TABLE]: TaskLeaseRow;
}
