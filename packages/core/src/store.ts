import type { ReminderContent } from './reminder-content.js';

/**
 * Where a reminder is in its life (spec R18). PENDING and ACTIVE are live;
 * the others are final and never change again.
 */
export type StoredReminderState =
  | 'PENDING'
  | 'ACTIVE'
  | 'EXPIRED'
  | 'DISPLACED'
  | 'CANCELLED'
  | 'DROPPED';

export function isLiveState(state: StoredReminderState): boolean {
  return state === 'PENDING' || state === 'ACTIVE';
}

/**
 * One reminder as the store keeps it: plain, JSON-serializable data, so a SQL
 * store can keep it in a row (or a JSON column) without knowing protobuf. Its
 * content is TaskReminder's fields (ttlTurns the effective value, R9); the
 * rest is the record's bookkeeping.
 */
export interface StoredReminder extends ReminderContent {
  /**
   * The task's acceptance sequence number (1, 2, …), assigned by the store
   * when the record is inserted and never reused within the task, even once
   * older records are purged (R48). Acceptance order is the order of `seq`;
   * list page tokens name a position in it (R49).
   */
  readonly seq: number;
  readonly state: StoredReminderState;
  /** Acceptance time, epoch ms. */
  readonly createTimeMs: number;
  /** When it reached a final state, epoch ms. */
  readonly endTimeMs?: number;
  /** The task turn it was first surfaced at. */
  readonly firstTurn?: number;
  /** On how many turns it has been surfaced. */
  readonly turnsSurfaced: number;
  /** Set when DISPLACED: the id of its successor. */
  readonly displacedBy?: string;
  /**
   * What the first InjectTaskReminder answer said beyond the record at
   * acceptance; with the record it rebuilds that answer for idempotent
   * re-sends (R13) without keeping a second copy of the body.
   */
  readonly acceptance: ReminderAcceptance;
  /**
   * R62, R63: the copies the agent forwarded into sub-tasks, in the order of
   * forwarding, each as last learned. Bookkeeping, not content: it changes
   * while the copies do, even once the record is final.
   */
  readonly forwards?: readonly StoredForward[];
}

/** One forwarded copy of a reminder (R62, R63), as the forwarding agent last learned it. */
export interface StoredForward {
  /** The sub-task, as its agent names it. */
  readonly taskId: string;
  /** The copy's id in the sub-task. */
  readonly reminderId: string;
  /** The copy's state there; absent when the sub-task's agent refused it. */
  readonly state?: StoredReminderState;
  /** The error code the sub-task's agent refused the copy with (R39). */
  readonly refusal?: string;
  /** When the agent learned this, epoch ms. */
  readonly updateTimeMs: number;
}

/**
 * What a transaction writes: a record whose `seq` the store assigns on insert
 * (any given value is ignored) and keeps on replacement.
 */
export type ReminderWrite = Omit<StoredReminder, 'seq'> & { readonly seq?: number };

/** The parts of an InjectTaskReminder answer not derivable from the record. */
export interface ReminderAcceptance {
  readonly displacedReminderIds: readonly string[];
  /** The task's A2A state at acceptance, as its ProtoJSON enum name. */
  readonly taskState: string;
}

/** Marks that the task's reminders were ended (R27) and when the records may be purged (R35). */
export interface TaskEndMark {
  /** The terminal A2A state, as its ProtoJSON enum name. */
  readonly taskState: string;
  readonly endTimeMs: number;
  /** Epoch ms after which the task's records may be deleted. */
  readonly purgeAfterMs: number;
}

/**
 * Identifies one task's reminders, scoped exactly like the SDK's stores:
 * tenant (`''` when none) and owner (from the OwnerResolver) of the caller.
 */
export interface ReminderStoreKey {
  readonly tenant: string;
  readonly owner: string;
  readonly taskId: string;
}

/** One string per key, for maps; NUL cannot occur in the ids it joins. */
export function storeKeyString(key: ReminderStoreKey): string {
  return `${key.tenant}\u0000${key.owner}\u0000${key.taskId}`;
}

/** A consistent read of one task's reminders. */
export interface ReminderTaskSnapshot {
  /** Turn boundaries taken so far (the last turn's number; 0 before the first). */
  readonly turn: number;
  readonly ended: TaskEndMark | undefined;
  /** Every retained record, in acceptance order. */
  readonly reminders: readonly StoredReminder[];
}

/** Which records one page of ListTaskReminders reads (R49). */
export interface ReminderPageQuery {
  /** Only records accepted after this sequence number (0: from the first). */
  readonly afterSeq: number;
  /** Most records to return (at least 1). */
  readonly limit: number;
  /** Only live (PENDING or ACTIVE) records. */
  readonly liveOnly: boolean;
}

/** One page of a task's records, read atomically. */
export interface ReminderPage {
  readonly ended: TaskEndMark | undefined;
  /** At most `limit` records with `seq > afterSeq`, in acceptance order. */
  readonly reminders: readonly StoredReminder[];
  /** Whether more matching records follow the last one returned. */
  readonly more: boolean;
}

/**
 * One atomic read-modify-write over a task's reminders. Reads see the
 * transaction's own writes. Reads are async so that a SQL store can answer
 * them with indexed queries inside its transaction instead of loading every
 * row of the task.
 */
export interface ReminderTransaction {
  /** Turn boundaries taken so far. */
  readonly turn: number;
  readonly ended: TaskEndMark | undefined;
  get(id: string): Promise<StoredReminder | undefined>;
  /** Live reminders in acceptance order. */
  live(): Promise<readonly StoredReminder[]>;
  liveCount(): Promise<number>;
  /** Live reminders carrying this dedupe key, in acceptance order. */
  liveWithDedupeKey(dedupeKey: string): Promise<readonly StoredReminder[]>;
  /**
   * Inserts a new reminder (appended in acceptance order, with the task's
   * next sequence number) or replaces the one with the same id (keeping its
   * sequence number). A record never turns from final back to live.
   */
  put(reminder: ReminderWrite): void;
  /**
   * R48: deletes the oldest final records, in the order they became final,
   * until at most `keep` final records remain; never a live one. Returns the
   * ids deleted, oldest first. A SQL store keeps the order records became
   * final in a column of its own (a per-task counter bumped when a record
   * turns final).
   */
  purgeOldestFinal(keep: number): Promise<readonly string[]>;
  setTurn(turn: number): void;
  markEnded(mark: TaskEndMark): void;
  /**
   * R52: appends one event batch (a `TaskReminderEventBatch`, protobuf
   * binary) to the task's log, committed with the transaction, and wakes the
   * replicas listening for the task once it commits. Returns the batch's
   * position (1, 2, …) in the task's commit order. Only stores that serve
   * replicas ({@link ReminderStore.eventLog}) implement it.
   */
  appendEvents?(batch: Uint8Array): number;
}

/** One committed event batch of a task, as its log holds it (R52). */
export interface LoggedEventBatch {
  /** Its position in the task's commit order. */
  readonly seq: number;
  /** A `TaskReminderEventBatch`, protobuf binary. */
  readonly batch: Uint8Array;
}

/**
 * The log of each task's committed event batches, which the replica running
 * a task reads to deliver events committed anywhere, in commit order (R52,
 * R54).
 */
export interface ReminderEventLog {
  /** The position of the task's last committed batch (0: none yet). */
  lastSeq(key: ReminderStoreKey): Promise<number>;
  /** At most `limit` batches after `afterSeq`, in order. */
  after(
    key: ReminderStoreKey,
    afterSeq: number,
    limit: number,
  ): Promise<readonly LoggedEventBatch[]>;
}

/**
 * Wakes a replica when events of a task may have been committed by any
 * process (R52), and after any time it could have missed such a wake-up,
 * e.g. while reconnecting (R54). A wake-up carries no events: the log is the
 * source of truth, so a lost or duplicated one costs a read, never an event.
 */
export interface ReminderChangeSignal {
  /** Calls `wake` on such occasions until the returned function is called. */
  subscribe(key: ReminderStoreKey, wake: () => void): () => void;
}

/**
 * Persistence of reminder records. Every operation on one task is atomic and
 * serialized with every other operation on that task; different tasks do not
 * wait for each other. A SQL implementation maps a transaction to one
 * database transaction that locks the task's row (e.g. `SELECT … FOR UPDATE`
 * in PostgreSQL, `BEGIN IMMEDIATE` in SQLite), so that several replicas can
 * share one database.
 */
export interface ReminderStore {
  /**
   * Runs `mutate` atomically for the task. If it throws (or rejects), none of
   * its writes persist and the error propagates.
   */
  transact<T>(key: ReminderStoreKey, mutate: (tx: ReminderTransaction) => Promise<T>): Promise<T>;
  /**
   * A turn boundary with nothing to surface, taken without a transaction
   * (R19): when no operation on the task is queued or running, its reminders
   * were not ended (R27) and none is live, increments the task's turn counter
   * at once, exactly as a transaction's `setTurn(turn + 1)` would commit, and
   * returns the new turn. Otherwise it changes nothing and returns
   * `undefined`, and the caller takes the boundary in a transaction. An
   * operation started after it sees the new turn; one queued before it makes
   * it decline, so every operation still lands on one side of the boundary.
   * Optional: only a store that can answer synchronously has it.
   */
  takeIdleTurn?(key: ReminderStoreKey): number | undefined;
  /** The task's reminders, or `undefined` when the store holds none for it. */
  read(key: ReminderStoreKey): Promise<ReminderTaskSnapshot | undefined>;
  /**
   * One page of the task's records (R49), or `undefined` when the store holds
   * none for it. A SQL store answers it with one indexed range query
   * (`seq > afterSeq ORDER BY seq LIMIT limit + 1`).
   */
  page(key: ReminderStoreKey, query: ReminderPageQuery): Promise<ReminderPage | undefined>;
  /** Deletes every task whose `purgeAfterMs` is at or before `nowMs`; returns how many (R35). */
  sweep(nowMs: number): Promise<number>;
  /** Present when the store keeps an event log for replicas (R52); see `appendEvents`. */
  readonly eventLog?: ReminderEventLog;
}
