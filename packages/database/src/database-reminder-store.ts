import type {
  LoggedEventBatch,
  ReminderEventLog,
  ReminderPage,
  ReminderPageQuery,
  ReminderStore,
  ReminderStoreKey,
  ReminderTaskSnapshot,
  ReminderTransaction,
  StoredReminder,
} from '@a2a-reminders/core';
import { storeKeyString } from '@a2a-reminders/core';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { sqliteBusyTimeoutOf } from './connect.js';
import type { ReminderDialect } from './dialect.js';
import { dialectOf } from './dialect.js';
import { EVENT_LOG_RETENTION_MS } from './event-channel.js';
import { LIVE_STATES_SQL } from './live-predicate.js';
import { endMarkOfRow, int, reminderOfRow } from './rows.js';
import type { ReminderDatabase, ReminderRow } from './schema.js';
import { REMINDER_EVENTS_TABLE, REMINDER_TASKS_TABLE, REMINDERS_TABLE } from './schema.js';
import { SqlReminderTransaction } from './sql-transaction.js';
import { isDeadline, isSqliteBusy, withStoreRetry } from './store-errors.js';
import { inImmediateTransaction, inTaskTransaction } from './task-lock.js';

/** Most ended tasks one sweep transaction deletes; a sweep runs batches until none is left. */
const SWEEP_BATCH = 500;

/** A task row's end mark next to one (possibly absent) record, as the one-statement reads return. */
type JoinedRow = {
  turn: number;
  last_seq: number | string;
  ended_task_state: string | null;
  ended_time_ms: number | string | null;
  purge_after_ms: number | string | null;
} & { [K in keyof ReminderRow]: ReminderRow[K] | null };

/**
 * A {@link ReminderStore} in a SQL database through a caller-provided
 * Kysely instance: PostgreSQL (`pg`) or SQLite (`better-sqlite3`). The same
 * instance can serve the SDK's `DatabaseTaskStore`, so tasks and reminders
 * live in one database.
 *
 * Each task's operations are atomic and serial across processes, not only
 * across promises (see `inTaskTransaction` for the locking on each engine),
 * so replicas of a worker can share the database (R19). The tables must
 * exist: run {@link migrateReminderStore} or the `a2a-reminders-db upgrade`
 * CLI first, as with the SDK's stores; migrating is an operator step.
 */
export class DatabaseReminderStore<DB = unknown> implements ReminderStore {
  private readonly db: Kysely<ReminderDatabase>;
  readonly dialect: ReminderDialect;
  /** SQLite: how long in all a call waits for another process's write lock (R69). */
  private readonly busyTimeoutMs: number;
  /** The last queued transaction of each task with one queued or running (see `transact`). */
  private readonly queues = new Map<string, Promise<void>>();
  /** R52, R54: each task's committed event batches, for replicas (see PostgresChangeSignal). */
  readonly eventLog: ReminderEventLog = {
    lastSeq: (key) => this.reading(() => this.lastEventSeq(key)),
    after: (key, afterSeq, limit) => this.reading(() => this.eventsAfter(key, afterSeq, limit)),
  };

  private async lastEventSeq(key: ReminderStoreKey): Promise<number> {
    const row = await this.db
      .selectFrom(REMINDER_TASKS_TABLE)
      .select('last_event_seq')
      .where('tenant', '=', key.tenant)
      .where('owner', '=', key.owner)
      .where('task_id', '=', key.taskId)
      .executeTakeFirst();
    return row === undefined ? 0 : int(row.last_event_seq);
  }

  private async eventsAfter(
    key: ReminderStoreKey,
    afterSeq: number,
    limit: number,
  ): Promise<readonly LoggedEventBatch[]> {
    const rows = await this.db
      .selectFrom(`${REMINDER_EVENTS_TABLE} as e`)
      .innerJoin(`${REMINDER_TASKS_TABLE} as t`, 't.task_key', 'e.task_key')
      .select(['e.seq', 'e.batch'])
      .where('t.tenant', '=', key.tenant)
      .where('t.owner', '=', key.owner)
      .where('t.task_id', '=', key.taskId)
      .where('e.seq', '>', afterSeq)
      .orderBy('e.seq')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ seq: int(r.seq), batch: new Uint8Array(r.batch) }));
  }

  constructor(db: Kysely<DB>) {
    // The store names its own tables at run time; the caller may type the
    // instance with any schema (its own tables, the SDK's).
    this.db = db as unknown as Kysely<ReminderDatabase>;
    this.dialect = dialectOf(this.db);
    this.busyTimeoutMs = sqliteBusyTimeoutOf(db);
  }

  async transact<T>(
    key: ReminderStoreKey,
    mutate: (tx: ReminderTransaction) => Promise<T>,
  ): Promise<T> {
    // A task's transactions queue here, in process, before they take a
    // connection: the database serializes them on the task's row anyway, and
    // a burst on one task waiting for that lock with pooled connections
    // would leave none for other tasks (and time out in the pool's queue).
    const k = storeKeyString(key);
    // R69: retried only while nothing can have committed, i.e. before the
    // body's last write returned; a failure at commit is left to the caller.
    let committing = false;
    const once = () => {
      committing = false;
      return inTaskTransaction(this.db, this.dialect, key, async (q, row) => {
        const tx = new SqlReminderTransaction(q, this.dialect, row);
        const result = await mutate(tx);
        await tx.finish();
        committing = true;
        return result;
      });
    };
    const run = (this.queues.get(k) ?? Promise.resolve()).then(() =>
      withStoreRetry(once, (error, tries, elapsedMs) =>
        committing ? undefined : this.retryPause(error, tries, elapsedMs),
      ),
    );
    const settled = run.then(
      () => {},
      () => {},
    );
    this.queues.set(k, settled);
    try {
      return await run;
    } finally {
      if (this.queues.get(k) === settled) this.queues.delete(k);
    }
  }

  /**
   * R69: when a call that failed for the store's sake is tried again. On
   * PostgreSQL up to three tries, the next pooled connection usually being a
   * live one, never after a deadline ran out. On SQLite, only while another
   * process holds the write lock, for the busy timeout in all: the
   * connection waits for a lock only a moment itself (it would block the
   * whole process meanwhile), and the rest is waited for here, between
   * other calls. A full or read-only file stays so.
   */
  private retryPause(error: unknown, tries: number, elapsedMs: number): number | undefined {
    if (this.dialect === 'sqlite') {
      return isSqliteBusy(error) && elapsedMs < this.busyTimeoutMs
        ? Math.min(100, 5 * 2 ** tries)
        : undefined;
    }
    if (isDeadline(error) || tries >= 3) return undefined;
    return 50 * 4 ** (tries - 1);
  }

  /** A read, retried as {@link retryPause} says, its store failures UNAVAILABLE (R69). */
  private reading<T>(read: () => Promise<T>): Promise<T> {
    return withStoreRetry(read, (error, tries, elapsedMs) =>
      this.retryPause(error, tries, elapsedMs),
    );
  }

  read(key: ReminderStoreKey): Promise<ReminderTaskSnapshot | undefined> {
    return this.reading(() => this.readOnce(key));
  }

  private async readOnce(key: ReminderStoreKey): Promise<ReminderTaskSnapshot | undefined> {
    // One statement: the task row and all its records from one snapshot.
    const rows = await this.joined(key, sql``, undefined);
    const first = rows[0];
    if (first === undefined || isBlank(first)) return undefined;
    return {
      turn: Number(first.turn),
      ended: endMarkOfRow(first),
      reminders: recordsOf(rows),
    };
  }

  page(key: ReminderStoreKey, query: ReminderPageQuery): Promise<ReminderPage | undefined> {
    return this.reading(() => this.pageOnce(key, query));
  }

  private async pageOnce(
    key: ReminderStoreKey,
    query: ReminderPageQuery,
  ): Promise<ReminderPage | undefined> {
    const live = query.liveOnly ? sql` and r.state in ${sql.raw(LIVE_STATES_SQL)}` : sql``;
    const filter = sql` and r.seq > ${query.afterSeq}${live}`;
    // limit + 1 rows tell whether another page follows.
    const rows = await this.joined(key, filter, query.limit + 1);
    const first = rows[0];
    if (first === undefined || isBlank(first)) return undefined;
    const records = recordsOf(rows);
    const more = records.length > query.limit;
    return {
      ended: endMarkOfRow(first),
      reminders: more ? records.slice(0, query.limit) : records,
      more,
    };
  }

  sweep(nowMs: number): Promise<number> {
    // Idempotent: a sweep that failed midway is simply run again.
    return withStoreRetry(
      () => this.sweepOnce(nowMs),
      (error, tries, elapsedMs) => this.retryPause(error, tries, elapsedMs),
    );
  }

  private async sweepOnce(nowMs: number): Promise<number> {
    // R54: batches past the log's retention, whatever their task's state.
    await this.db
      .deleteFrom(REMINDER_EVENTS_TABLE)
      .where('create_time_ms', '<', Date.now() - EVENT_LOG_RETENTION_MS)
      .execute();
    let purged = 0;
    for (;;) {
      const batch = await this.inWriteTransaction(async (q) => {
        const due = await q
          .selectFrom(REMINDER_TASKS_TABLE)
          .select('task_key')
          // Repeats the partial index's own term, so the planner can use it.
          .where(sql<boolean>`purge_after_ms is not null`)
          .where('purge_after_ms', '<=', nowMs)
          .limit(SWEEP_BATCH)
          .execute();
        if (due.length === 0) return 0;
        const keys = due.map((d) => int(d.task_key));
        await q.deleteFrom(REMINDERS_TABLE).where('task_key', 'in', keys).execute();
        await q.deleteFrom(REMINDER_EVENTS_TABLE).where('task_key', 'in', keys).execute();
        await q.deleteFrom(REMINDER_TASKS_TABLE).where('task_key', 'in', keys).execute();
        return keys.length;
      });
      purged += batch;
      if (batch < SWEEP_BATCH) return purged;
    }
  }

  private inWriteTransaction<T>(body: (q: Kysely<ReminderDatabase>) => Promise<T>): Promise<T> {
    return this.dialect === 'postgres'
      ? this.db.transaction().execute(body)
      : inImmediateTransaction(this.db, body);
  }

  /**
   * The task's row joined with its records matching `filter`, in acceptance
   * order, at most `limit` of them: one indexed statement. PostgreSQL reads
   * the records in a LATERAL subquery, so the limit walks the (task_key,
   * seq) index in order; SQLite (no LATERAL) reaches the same plan from a
   * plain join, since the task lookup is on a unique key (README: plans).
   * No row at all: the store holds nothing for the task.
   */
  private async joined(
    key: ReminderStoreKey,
    filter: ReturnType<typeof sql>,
    limit: number | undefined,
  ): Promise<Array<JoinedRow>> {
    const limitSql = limit === undefined ? sql`` : sql` limit ${limit}`;
    const scope = sql`t.tenant = ${key.tenant} and t.owner = ${key.owner} and t.task_id = ${key.taskId}`;
    const tasks = sql.table(REMINDER_TASKS_TABLE);
    const reminders = sql.table(REMINDERS_TABLE);
    const taskColumns = sql`t.turn, t.last_seq, t.ended_task_state, t.ended_time_ms, t.purge_after_ms`;
    const query =
      this.dialect === 'postgres'
        ? sql<JoinedRow>`select ${taskColumns}, r.* from ${tasks} t
            left join lateral (
              select * from ${reminders} r where r.task_key = t.task_key${filter}
              order by r.seq${limitSql}
            ) r on true
            where ${scope} order by r.seq`
        : sql<JoinedRow>`select ${taskColumns}, r.* from ${tasks} t
            left join ${reminders} r on r.task_key = t.task_key${filter}
            where ${scope} order by r.seq${limitSql}`;
    return (await query.execute(this.db)).rows;
  }
}

/**
 * A task row no transaction has written anything to yet (a transaction
 * that only read creates it, for its lock): the store holds nothing for the
 * task, as the in-memory store keeps no bucket for it.
 */
function isBlank(row: JoinedRow): boolean {
  return Number(row.turn) === 0 && int(row.last_seq) === 0 && row.ended_task_state === null;
}

function recordsOf(rows: ReadonlyArray<JoinedRow>): StoredReminder[] {
  const records: StoredReminder[] = [];
  for (const row of rows) {
    // A task with no matching record joins to one row of nulls.
    if (row.id === null) continue;
    records.push(reminderOfRow(row as ReminderRow));
  }
  return records;
}
