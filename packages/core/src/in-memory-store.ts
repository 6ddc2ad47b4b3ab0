import type {
  ReminderStore,
  ReminderStoreKey,
  ReminderTaskSnapshot,
  ReminderTransaction,
  StoredReminder,
  TaskEndMark,
} from './store.js';
import { isLiveState } from './store.js';

/** One task's reminders, indexed so that no operation scans every record. */
interface TaskBucket {
  turn: number;
  ended: TaskEndMark | undefined;
  /** Acceptance order. */
  readonly records: StoredReminder[];
  readonly indexById: Map<string, number>;
  /** Live reminders by id; Map iteration order is acceptance order. */
  live: Map<string, StoredReminder>;
  /** Live ids per non-empty dedupe key. */
  readonly liveByDedupeKey: Map<string, Set<string>>;
}

type Undo = () => void;

function keyString(key: ReminderStoreKey): string {
  return `${key.tenant}\u0000${key.owner}\u0000${key.taskId}`;
}

function newBucket(): TaskBucket {
  return {
    turn: 0,
    ended: undefined,
    records: [],
    indexById: new Map(),
    live: new Map(),
    liveByDedupeKey: new Map(),
  };
}

/**
 * A {@link ReminderStore} in process memory: per-task promise locks for
 * atomicity, an undo log for rollback, and indexes by id, liveness and dedupe
 * key so inject and cancel cost O(1) and a turn boundary O(live).
 * Suitable for one process; replicas need a shared (SQL) store.
 */
export class InMemoryReminderStore implements ReminderStore {
  private readonly buckets = new Map<string, TaskBucket>();
  private readonly locks = new Map<string, Promise<unknown>>();
  /** Ended tasks only, so a sweep never visits live ones. */
  private readonly ended = new Map<string, number>();

  async transact<T>(
    key: ReminderStoreKey,
    mutate: (tx: ReminderTransaction) => Promise<T>,
  ): Promise<T> {
    const k = keyString(key);
    const run = () => this.runTransaction(k, mutate);
    const previous = this.locks.get(k) ?? Promise.resolve();
    const next = previous.then(run, run);
    this.locks.set(k, next);
    const release = () => {
      if (this.locks.get(k) === next) this.locks.delete(k);
    };
    next.then(release, release);
    return next;
  }

  async read(key: ReminderStoreKey): Promise<ReminderTaskSnapshot | undefined> {
    const bucket = this.buckets.get(keyString(key));
    if (bucket === undefined) return undefined;
    return { turn: bucket.turn, ended: bucket.ended, reminders: bucket.records.slice() };
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
        (bucket.records.length > 0 || bucket.turn > 0 || bucket.ended)
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
    const store = this;
    return {
      get turn() {
        return bucket.turn;
      },
      get ended() {
        return bucket.ended;
      },
      async get(id) {
        const index = bucket.indexById.get(id);
        return index === undefined ? undefined : bucket.records[index];
      },
      async live() {
        return [...bucket.live.values()];
      },
      async liveCount() {
        return bucket.live.size;
      },
      async liveWithDedupeKey(dedupeKey) {
        const ids = bucket.liveByDedupeKey.get(dedupeKey);
        if (ids === undefined) return [];
        const found: StoredReminder[] = [];
        for (const id of ids) {
          const r = bucket.live.get(id);
          if (r !== undefined) found.push(r);
        }
        return found;
      },
      put(reminder) {
        const index = bucket.indexById.get(reminder.id);
        // A new record is copied, its one nested value (metadata) deeply, so the
        // caller keeps no handle on it; a replacement shares the nested metadata
        // of the stored version (records are immutable), which keeps a turn
        // boundary O(live) with a small constant.
        const stored: StoredReminder = index === undefined ? copyOf(reminder) : { ...reminder };
        const previous = index === undefined ? undefined : bucket.records[index];
        if (index === undefined) {
          bucket.indexById.set(reminder.id, bucket.records.length);
          bucket.records.push(stored);
        } else {
          bucket.records[index] = stored;
        }
        setLiveness(bucket, previous, stored);
        undo.push(() => {
          if (index === undefined || previous === undefined) {
            bucket.records.pop();
            bucket.indexById.delete(reminder.id);
            setLiveness(bucket, stored, undefined);
            return;
          }
          bucket.records[index] = previous;
          if (isLiveState(previous.state) && !isLiveState(stored.state)) {
            // Re-entering the live Map would put it last; rebuild in acceptance order.
            rebuildLive(bucket);
          } else {
            setLiveness(bucket, stored, previous);
          }
        });
      },
      setTurn(turn) {
        const previous = bucket.turn;
        bucket.turn = turn;
        undo.push(() => {
          bucket.turn = previous;
        });
      },
      markEnded(mark) {
        const previous = bucket.ended;
        bucket.ended = mark;
        store.ended.set(k, mark.purgeAfterMs);
        undo.push(() => {
          bucket.ended = previous;
          if (previous === undefined) store.ended.delete(k);
          else store.ended.set(k, previous.purgeAfterMs);
        });
      },
    };
  }
}

function copyOf(reminder: StoredReminder): StoredReminder {
  const copy: StoredReminder = {
    ...reminder,
    acceptance: {
      displacedReminderIds: [...reminder.acceptance.displacedReminderIds],
      taskState: reminder.acceptance.taskState,
    },
  };
  return reminder.metadata === undefined
    ? copy
    : { ...copy, metadata: structuredClone(reminder.metadata) };
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
    if (before.dedupeKey !== '') {
      const ids = bucket.liveByDedupeKey.get(before.dedupeKey);
      ids?.delete(before.id);
      if (ids?.size === 0) bucket.liveByDedupeKey.delete(before.dedupeKey);
    }
  }
  if (isLive) {
    bucket.live.set(after.id, after);
    if (after.dedupeKey !== '') {
      let ids = bucket.liveByDedupeKey.get(after.dedupeKey);
      if (ids === undefined) {
        ids = new Set();
        bucket.liveByDedupeKey.set(after.dedupeKey, ids);
      }
      ids.add(after.id);
    }
  }
}

function rebuildLive(bucket: TaskBucket): void {
  bucket.live = new Map();
  bucket.liveByDedupeKey.clear();
  for (const r of bucket.records) setLiveness(bucket, undefined, r);
}
