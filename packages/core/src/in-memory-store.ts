import { FinalOrder } from './final-order.js';
import { recordWith } from './record-with.js';
import type {
  ReminderPage,
  ReminderPageQuery,
  ReminderStore,
  ReminderStoreKey,
  ReminderTaskSnapshot,
  ReminderTransaction,
  ReminderWrite,
  StoredReminder,
  TaskEndMark,
} from './store.js';
import { isLiveState, storeKeyString } from './store.js';

/** One task's reminders, indexed so that no operation scans every record. */
interface TaskBucket {
  turn: number;
  ended: TaskEndMark | undefined;
  /** The last acceptance sequence number given out; never goes back (R48, R49). */
  lastSeq: number;
  /**
   * Retained records by id; Map iteration order is acceptance order (a
   * replacement keeps its key's position, a purge deletes in O(1)).
   */
  records: Map<string, StoredReminder>;
  /** Live reminders by id; Map iteration order is acceptance order. */
  live: Map<string, StoredReminder>;
  /**
   * Live ids per non-empty dedupe key: the id alone, as an inject leaves it
   * (R15: it displaces every live reminder of its key), so a displacement
   * allocates no Set; a Set only if a write puts more.
   */
  readonly liveByDedupeKey: LiveKeyIndex;
  /** Ids of final records in the order they became final, oldest first (R48). */
  readonly finals: FinalOrder;
}

type Undo = () => void;

function newBucket(): TaskBucket {
  return {
    turn: 0,
    ended: undefined,
    lastSeq: 0,
    records: new Map(),
    live: new Map(),
    liveByDedupeKey: new Map(),
    finals: new FinalOrder(),
  };
}

/**
 * A {@link ReminderStore} in process memory: per-task promise locks for
 * atomicity, an undo log for rollback, and indexes by id, liveness, dedupe
 * key and end order so inject, cancel and a purge cost O(1) and a turn
 * boundary O(live). A page read is O(retained), which R48 bounds.
 * Suitable for one process; replicas need a shared (SQL) store.
 */
export class InMemoryReminderStore implements ReminderStore {
  private readonly buckets = new Map<string, TaskBucket>();
  private readonly locks = new Map<string, Promise<unknown>>();
  /** Ended tasks only, so a sweep never visits live ones. */
  private readonly ended = new Map<string, number>();

  // Not async: it returns the transaction's own promise, without a frame and
  // the extra promise an async function wraps around it (every inject).
  transact<T>(key: ReminderStoreKey, mutate: (tx: ReminderTransaction) => Promise<T>): Promise<T> {
    const k = storeKeyString(key);
    const previous = this.locks.get(k);
    let next: Promise<T>;
    if (previous === undefined) {
      // The task's lock is free: start now rather than a microtask later.
      // Nothing else runs before the lock is taken below.
      next = this.runTransaction(k, mutate);
    } else {
      const run = () => this.runTransaction(k, mutate);
      next = previous.then(run, run);
    }
    this.locks.set(k, next);
    const release = () => {
      if (this.locks.get(k) === next) this.locks.delete(k);
    };
    // Registered before `next` is returned, so every caller resumes after the
    // lock is released: takeIdleTurn then finds it free.
    next.then(release, release);
    return next;
  }

  /**
   * See {@link ReminderStore.takeIdleTurn}. A task with a transaction in its
   * lock queue declines, so a boundary never overtakes an operation queued
   * before it, nor reads a bucket a running transaction is changing.
   */
  takeIdleTurn(key: ReminderStoreKey): number | undefined {
    const k = storeKeyString(key);
    if (this.locks.has(k)) return undefined;
    let bucket = this.buckets.get(k);
    if (bucket === undefined) {
      bucket = newBucket();
      this.buckets.set(k, bucket);
    } else if (bucket.ended !== undefined || bucket.live.size > 0) {
      return undefined;
    }
    bucket.turn += 1;
    return bucket.turn;
  }

  async read(key: ReminderStoreKey): Promise<ReminderTaskSnapshot | undefined> {
    const bucket = this.buckets.get(storeKeyString(key));
    if (bucket === undefined) return undefined;
    return { turn: bucket.turn, ended: bucket.ended, reminders: [...bucket.records.values()] };
  }

  async page(key: ReminderStoreKey, query: ReminderPageQuery): Promise<ReminderPage | undefined> {
    const bucket = this.buckets.get(storeKeyString(key));
    if (bucket === undefined) return undefined;
    const source = query.liveOnly ? bucket.live : bucket.records;
    const reminders: StoredReminder[] = [];
    for (const r of source.values()) {
      if (r.seq <= query.afterSeq) continue;
      if (reminders.length === query.limit) return { ended: bucket.ended, reminders, more: true };
      reminders.push(r);
    }
    return { ended: bucket.ended, reminders, more: false };
  }

  async sweep(nowMs: number): Promise<number> {
    let purged = 0;
    for (const [k, purgeAfterMs] of this.ended) {
      if (purgeAfterMs <= nowMs) {
        this.ended.delete(k);
        this.buckets.delete(k);
        purged += 1;
      }
    }
    return purged;
  }

  private async runTransaction<T>(
    k: string,
    mutate: (tx: ReminderTransaction) => Promise<T>,
  ): Promise<T> {
    const existing = this.buckets.get(k);
    const bucket = existing ?? newBucket();
    const undo: Undo[] = [];
    const tx = this.transactionOn(k, bucket, undo);
    try {
      const result = await mutate(tx);
      if (
        existing === undefined &&
        (bucket.records.size > 0 || bucket.lastSeq > 0 || bucket.turn > 0 || bucket.ended)
      ) {
        this.buckets.set(k, bucket);
      }
      return result;
    } catch (error) {
      for (let i = undo.length - 1; i >= 0; i -= 1) undo[i]?.();
      throw error;
    }
  }

  private transactionOn(k: string, bucket: TaskBucket, undo: Undo[]): ReminderTransaction {
    return new InMemoryTransaction(k, bucket, undo, this.ended);
  }
}

/**
 * One transaction on a task's bucket. A class with plain fields, so every
 * transaction has the same shape and its methods live on the prototype: an
 * object literal with getters and closures per transaction cost several µs
 * of property lookups and garbage on every inject and turn.
 */
class InMemoryTransaction implements ReminderTransaction {
  turn: number;
  ended: TaskEndMark | undefined;

  constructor(
    private readonly k: string,
    private readonly bucket: TaskBucket,
    private readonly undo: Undo[],
    private readonly endedTasks: Map<string, number>,
  ) {
    this.turn = bucket.turn;
    this.ended = bucket.ended;
  }

  async get(id: string): Promise<StoredReminder | undefined> {
    return this.bucket.records.get(id);
  }

  async live(): Promise<readonly StoredReminder[]> {
    return [...this.bucket.live.values()];
  }

  async liveCount(): Promise<number> {
    return this.bucket.live.size;
  }

  async liveWithDedupeKey(dedupeKey: string): Promise<readonly StoredReminder[]> {
    const bucket = this.bucket;
    const ids = bucket.liveByDedupeKey.get(dedupeKey);
    if (ids === undefined) return [];
    if (typeof ids === 'string') {
      const r = bucket.live.get(ids);
      return r === undefined ? [] : [r];
    }
    const found: StoredReminder[] = [];
    for (const id of ids) {
      const r = bucket.live.get(id);
      if (r !== undefined) found.push(r);
    }
    return found;
  }

  put(reminder: ReminderWrite): void {
    const bucket = this.bucket;
    const previous = bucket.records.get(reminder.id);
    if (previous !== undefined && !isLiveState(previous.state) && isLiveState(reminder.state)) {
      throw new Error(`reminder ${reminder.id} is final and cannot become live again`);
    }
    // A new record is copied, its metadata deeply and its acceptance afresh,
    // so the caller cannot change them under the store; a replacement shares
    // the nested values of the version it replaces (records are immutable),
    // which keeps a turn boundary O(live) with a small constant.
    const lastSeq = bucket.lastSeq;
    const stored: StoredReminder =
      previous === undefined ? copyOf(reminder, lastSeq + 1) : recordWith(reminder, previous.seq);
    if (previous === undefined) bucket.lastSeq = stored.seq;
    // Same key: Map.set keeps a replacement at its acceptance position.
    bucket.records.set(stored.id, stored);
    setLiveness(bucket, previous, stored);
    // A final record never becomes live again (above): a record turns final
    // once (an id purged and accepted again is a new record, R48).
    const turnedFinal =
      !isLiveState(stored.state) && (previous === undefined || isLiveState(previous.state));
    if (turnedFinal) bucket.finals.push(stored.id);
    this.undo.push(() => {
      // Undo runs newest first: the id pushed here is the newest final again.
      if (turnedFinal) bucket.finals.pop();
      if (previous === undefined) {
        bucket.records.delete(stored.id);
        bucket.lastSeq = lastSeq;
        setLiveness(bucket, stored, undefined);
        return;
      }
      bucket.records.set(previous.id, previous);
      if (isLiveState(previous.state) && !isLiveState(stored.state)) {
        // Re-entering the live Map would put it last; rebuild in acceptance order.
        rebuildLive(bucket);
      } else {
        setLiveness(bucket, stored, previous);
      }
    });
  }

  async purgeOldestFinal(keep: number): Promise<readonly string[]> {
    const bucket = this.bucket;
    // The service refuses a cap that is no whole number (R48); a negative one keeps none.
    const count = bucket.finals.size - Math.max(0, keep);
    if (!(count > 0)) return [];
    const ids: string[] = [];
    const purged: StoredReminder[] = [];
    for (let i = 0; i < count; i += 1) {
      const id = bucket.finals.at(i) as string;
      ids.push(id);
      // Every queued id has its record: only a purge deletes one, and it dequeues the id.
      purged.push(bucket.records.get(id) as StoredReminder);
      bucket.records.delete(id);
    }
    bucket.finals.dropOldest(count);
    this.undo.push(() => {
      // Undo runs newest first, so the purged ids were the oldest finals.
      bucket.finals.restoreOldest(ids);
      for (const r of purged) bucket.records.set(r.id, r);
      bucket.records = new Map([...bucket.records].sort(([, a], [, b]) => a.seq - b.seq));
    });
    return ids;
  }

  setTurn(turn: number): void {
    const bucket = this.bucket;
    const previous = bucket.turn;
    bucket.turn = turn;
    this.turn = turn;
    this.undo.push(() => {
      bucket.turn = previous;
    });
  }

  markEnded(mark: TaskEndMark): void {
    const { bucket, k, endedTasks } = this;
    const previous = bucket.ended;
    bucket.ended = mark;
    this.ended = mark;
    endedTasks.set(k, mark.purgeAfterMs);
    this.undo.push(() => {
      bucket.ended = previous;
      if (previous === undefined) endedTasks.delete(k);
      else endedTasks.set(k, previous.purgeAfterMs);
    });
  }
}

/**
 * A new record: its metadata copied deeply and its acceptance afresh, the
 * values a caller may still hold. Provenance and forwards are shared: the
 * service builds them for the call and never changes them.
 */
function copyOf(r: ReminderWrite, seq: number): StoredReminder {
  return recordWith(r, seq, {
    metadata: r.metadata === undefined ? undefined : structuredClone(r.metadata),
    acceptance: {
      displacedReminderIds: [...r.acceptance.displacedReminderIds],
      taskState: r.acceptance.taskState,
    },
  });
}

function setLiveness(
  bucket: TaskBucket,
  before: StoredReminder | undefined,
  after: StoredReminder | undefined,
): void {
  const wasLive = before !== undefined && isLiveState(before.state);
  const isLive = after !== undefined && isLiveState(after.state);
  if (wasLive && isLive) {
    // Same id, same dedupe key: Map.set on an existing key keeps its position.
    bucket.live.set(after.id, after);
    return;
  }
  if (wasLive) {
    bucket.live.delete(before.id);
    if (before.dedupeKey !== '') removeLiveKey(bucket.liveByDedupeKey, before.dedupeKey, before.id);
  }
  if (isLive) {
    bucket.live.set(after.id, after);
    if (after.dedupeKey !== '') addLiveKey(bucket.liveByDedupeKey, after.dedupeKey, after.id);
  }
}

function rebuildLive(bucket: TaskBucket): void {
  bucket.live = new Map();
  bucket.liveByDedupeKey.clear();
  for (const r of bucket.records.values()) setLiveness(bucket, undefined, r);
}

type LiveKeyIndex = Map<string, string | Set<string>>;

function addLiveKey(index: LiveKeyIndex, key: string, id: string): void {
  const ids = index.get(key);
  if (ids === undefined || ids === id) index.set(key, id);
  else if (typeof ids === 'string') index.set(key, new Set([ids, id]));
  else ids.add(id);
}

function removeLiveKey(index: LiveKeyIndex, key: string, id: string): void {
  const ids = index.get(key);
  if (ids === id) {
    index.delete(key);
  } else if (typeof ids === 'object') {
    ids.delete(id);
    if (ids.size === 0) index.delete(key);
  }
}
