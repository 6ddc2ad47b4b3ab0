import type {
  ReminderStoreKey,
  ReminderTransaction,
  ReminderWrite,
  StoredReminder,
  TaskEndMark,
} from '@a2a-reminders/core';
import { isLiveState } from '@a2a-reminders/core';
import type { Kysely, RawBuilder } from 'kysely';
import { sql } from 'kysely';
import type { ReminderDialect } from './dialect.js';
import {
  EVENT_CHANNEL,
  EVENT_LOG_MAX_PER_TASK,
  EVENT_LOG_TRIM_EVERY,
  eventChannelPayload,
} from './event-channel.js';
import { isLive } from './live-predicate.js';
import { endMarkOfRow, int, reminderOfRow, rowOfReminder } from './rows.js';
import type { ReminderDatabase, ReminderRow, ReminderTaskRow } from './schema.js';
import { REMINDER_EVENTS_TABLE, REMINDER_TASKS_TABLE, REMINDERS_TABLE } from './schema.js';

/** The task row's values as one transaction sees and changes them. */
interface TaskState {
  readonly taskKey: number;
  turn: number;
  lastSeq: number;
  lastFinalSeq: number;
  liveCount: number;
  finalCount: number;
  ended: TaskEndMark | undefined;
  lastEventSeq: number;
}

/** A record this transaction has read or written, with its place in the final order. */
interface Known {
  readonly record: StoredReminder;
  readonly finalSeq: number | null;
}

/** A write not yet sent: the row as the database holds it (null: new), and as it must become. */
interface PendingWrite {
  readonly stored: ReminderRow | null;
  latest: ReminderRow;
}

/**
 * One database transaction on one task, whose row the caller has locked.
 *
 * Reads are answered from what the transaction knows where it can: the
 * task row's counters (`liveCount`, and a task with nothing live reads no
 * reminder row at all), the live set once read (one indexed query, then
 * kept up to date by the transaction's own writes, in acceptance order), and
 * records read by id. Writes (`put`, synchronous in the interface) are
 * coalesced per record and sent at the end: on PostgreSQL in one statement
 * (data-modifying CTEs) together with the task row, on SQLite as a few
 * in-process statements. A failure anywhere fails `finish()` or the next
 * read, and the caller rolls everything back.
 *
 * The live set is read after the lock, in a statement of its own: on
 * PostgreSQL a statement that waited for the row lock still reads the other
 * tables from the snapshot it started with, which could miss what the
 * transaction it waited for wrote.
 */
export class SqlReminderTransaction implements ReminderTransaction {
  private readonly task: TaskState;
  private readonly known = new Map<string, Known | null>();
  /** Live records by id once read; Map order is acceptance order (new records get the highest seq). */
  private liveSet: Map<string, Known> | undefined;
  private readonly pending = new Map<string, PendingWrite>();
  /** Lookups of records put without being read first, run before anything else. */
  private queue: Promise<void> = Promise.resolve();
  private taskChanged = false;
  /** Event batches appended by this transaction (R52), written at finish. */
  private readonly batches: Array<{ readonly seq: number; readonly batch: Uint8Array }> = [];

  constructor(
    private readonly q: Kysely<ReminderDatabase>,
    private readonly dialect: ReminderDialect,
    row: ReminderTaskRow,
  ) {
    this.task = {
      taskKey: int(row.task_key),
      turn: row.turn,
      lastSeq: int(row.last_seq),
      lastFinalSeq: int(row.last_final_seq),
      liveCount: row.live_count,
      finalCount: row.final_count,
      ended: endMarkOfRow(row),
      lastEventSeq: int(row.last_event_seq),
    };
    this.key = { tenant: row.tenant, owner: row.owner, taskId: row.task_id };
  }

  private readonly key: ReminderStoreKey;

  get turn(): number {
    return this.task.turn;
  }

  get ended(): TaskEndMark | undefined {
    return this.task.ended;
  }

  async get(id: string): Promise<StoredReminder | undefined> {
    await this.settled();
    return (await this.lookUp(id))?.record;
  }

  async live(): Promise<readonly StoredReminder[]> {
    await this.settled();
    return [...(await this.liveRecords()).values()].map((k) => k.record);
  }

  async liveCount(): Promise<number> {
    await this.settled();
    return this.task.liveCount;
  }

  /**
   * Filters the live set (one read through the live index, then kept for the
   * rest of the transaction) rather than querying by key: the live set holds
   * at most the live quota (R17), so an index of its own on the dedupe key
   * would cost every write of a record and save next to nothing.
   */
  async liveWithDedupeKey(dedupeKey: string): Promise<readonly StoredReminder[]> {
    await this.settled();
    if (dedupeKey === '') return [];
    return [...(await this.liveRecords()).values()]
      .map((k) => k.record)
      .filter((r) => r.dedupeKey === dedupeKey);
  }

  put(reminder: ReminderWrite): void {
    const previous = this.known.get(reminder.id);
    if (previous !== undefined) {
      this.write(reminder, previous);
      return;
    }
    // Not seen in this transaction: look it up first, in call order.
    const step = this.queue.then(async () => this.write(reminder, await this.lookUp(reminder.id)));
    this.queue = step;
    // The failure surfaces at the next read or at finish(); this only keeps
    // it from being reported as unhandled in between.
    step.catch(() => {});
  }

  async purgeOldestFinal(keep: number): Promise<readonly string[]> {
    await this.settled();
    const excess = this.task.finalCount - Math.max(0, keep);
    if (excess <= 0) return [];
    // The database must hold every record's final position first.
    await this.flushRecords();
    const oldest = this.q
      .selectFrom(REMINDERS_TABLE)
      .select('final_seq')
      .where('task_key', '=', this.task.taskKey)
      // Repeats the partial index's own term, so the planner can use it.
      .where(sql<boolean>`final_seq is not null`)
      .orderBy('final_seq')
      .limit(excess);
    const deleted = await this.q
      .deleteFrom(REMINDERS_TABLE)
      .where('task_key', '=', this.task.taskKey)
      .where('final_seq', 'in', oldest)
      .returning(['id', 'final_seq'])
      .execute();
    deleted.sort((a, b) => int(a.final_seq ?? 0) - int(b.final_seq ?? 0));
    for (const row of deleted) this.known.set(row.id, null);
    this.task.finalCount -= deleted.length;
    this.taskChanged = true;
    return deleted.map((row) => row.id);
  }

  setTurn(turn: number): void {
    this.task.turn = turn;
    this.taskChanged = true;
  }

  markEnded(mark: TaskEndMark): void {
    this.task.ended = mark;
    this.taskChanged = true;
  }

  appendEvents(batch: Uint8Array): number {
    const seq = ++this.task.lastEventSeq;
    this.taskChanged = true;
    this.batches.push({ seq, batch });
    return seq;
  }

  /** Sends every pending write and the task row, if anything changed. */
  async finish(): Promise<void> {
    await this.settled();
    const notify = this.batches.length > 0;
    const records = [...this.recordStatements(), ...this.eventStatements()];
    const task = this.taskChanged ? this.taskStatement() : undefined;
    this.pending.clear();
    if (this.dialect === 'postgres') {
      // One round trip: every write a data-modifying CTE of the last one.
      const all = task === undefined ? records : [...records, task];
      // R52: delivered to listeners when (and only if) this commits, in commit order.
      if (notify) {
        all.push(sql`select pg_notify(${EVENT_CHANNEL}, ${eventChannelPayload(this.key)})`);
      }
      const last = all.pop();
      if (last === undefined) return;
      const ctes = all.map((s, i) => sql`${sql.raw(`w${i}`)} as (${s})`);
      await (ctes.length === 0 ? last : sql`with ${sql.join(ctes)} ${last}`).execute(this.q);
      return;
    }
    // SQLite runs in process: statements cost no round trip.
    for (const s of records) await s.execute(this.q);
    if (task !== undefined) await task.execute(this.q);
  }

  private async flushRecords(): Promise<void> {
    const records = this.recordStatements();
    this.pending.clear();
    for (const s of records) await s.execute(this.q);
  }

  /** One INSERT or UPDATE per pending record, the UPDATE naming only changed columns. */
  private recordStatements(): RawBuilder<unknown>[] {
    const statements: RawBuilder<unknown>[] = [];
    for (const w of this.pending.values()) {
      if (w.stored === null) {
        const columns = Object.keys(w.latest) as Array<keyof ReminderRow>;
        statements.push(
          sql`insert into ${sql.table(REMINDERS_TABLE)} (${sql.join(columns.map((c) => sql.ref(c)))})
            values (${sql.join(columns.map((c) => w.latest[c]))})`,
        );
        continue;
      }
      const changed = (Object.keys(w.latest) as Array<keyof ReminderRow>).filter(
        (c) => w.latest[c] !== w.stored?.[c],
      );
      if (changed.length === 0) continue;
      statements.push(
        sql`update ${sql.table(REMINDERS_TABLE)}
          set ${sql.join(changed.map((c) => sql`${sql.ref(c)} = ${w.latest[c]}`))}
          where task_key = ${this.task.taskKey} and id = ${w.latest.id}`,
      );
    }
    return statements;
  }

  /** The batches appended (R52), and a trim of the task's oldest ones now and then. */
  private eventStatements(): RawBuilder<unknown>[] {
    const statements: RawBuilder<unknown>[] = [];
    const nowMs = Date.now();
    for (const { seq, batch } of this.batches) {
      statements.push(
        sql`insert into ${sql.table(REMINDER_EVENTS_TABLE)} (task_key, seq, batch, create_time_ms)
          values (${this.task.taskKey}, ${seq}, ${batch}, ${nowMs})`,
      );
      if (seq % EVENT_LOG_TRIM_EVERY === 0 && seq > EVENT_LOG_MAX_PER_TASK) {
        statements.push(
          sql`delete from ${sql.table(REMINDER_EVENTS_TABLE)}
            where task_key = ${this.task.taskKey} and seq <= ${seq - EVENT_LOG_MAX_PER_TASK}`,
        );
      }
    }
    this.batches.length = 0;
    return statements;
  }

  private taskStatement(): RawBuilder<unknown> {
    const t = this.task;
    return sql`update ${sql.table(REMINDER_TASKS_TABLE)}
      set turn = ${t.turn}, last_seq = ${t.lastSeq}, last_final_seq = ${t.lastFinalSeq},
        live_count = ${t.liveCount}, final_count = ${t.finalCount}, ended_task_state = ${t.ended?.taskState ?? null},
        ended_time_ms = ${t.ended?.endTimeMs ?? null}, purge_after_ms = ${t.ended?.purgeAfterMs ?? null},
        last_event_seq = ${t.lastEventSeq}
      where task_key = ${t.taskKey}`;
  }

  private async lookUp(id: string): Promise<Known | null> {
    const cached = this.known.get(id);
    if (cached !== undefined) return cached;
    const row = await this.q
      .selectFrom(REMINDERS_TABLE)
      .selectAll()
      .where('task_key', '=', this.task.taskKey)
      .where('id', '=', id)
      .executeTakeFirst();
    const known =
      row === undefined
        ? null
        : {
            record: reminderOfRow(row),
            finalSeq: row.final_seq === null ? null : int(row.final_seq),
          };
    this.known.set(id, known);
    return known;
  }

  /** The live set: read once (none when the counter says so), then kept by the writes. */
  private async liveRecords(): Promise<Map<string, Known>> {
    if (this.liveSet !== undefined) return this.liveSet;
    const live = new Map<string, Known>();
    if (this.task.liveCount > 0) {
      // Rows the transaction already wrote must be in the database to be read back.
      await this.flushRecords();
      const rows = await this.q
        .selectFrom(REMINDERS_TABLE)
        .selectAll()
        .where('task_key', '=', this.task.taskKey)
        .where(isLive())
        .orderBy('seq')
        .execute();
      for (const row of rows) {
        const known = this.known.get(row.id) ?? { record: reminderOfRow(row), finalSeq: null };
        this.known.set(row.id, known);
        live.set(row.id, known);
      }
    }
    this.liveSet = live;
    return live;
  }

  /** Applies one put to the counters, the live set and the cache, and records the write. */
  private write(reminder: ReminderWrite, previous: Known | null): void {
    const wasLive = previous !== null && isLiveState(previous.record.state);
    const nowLive = isLiveState(reminder.state);
    if (previous !== null && !wasLive && nowLive) {
      throw new Error(`reminder ${reminder.id} is final and cannot become live again`);
    }
    const t = this.task;
    const seq = previous === null ? ++t.lastSeq : previous.record.seq;
    // R48: a record takes its place in the final order when it first turns final.
    const finalSeq = nowLive ? null : (previous?.finalSeq ?? ++t.lastFinalSeq);
    t.liveCount += (nowLive ? 1 : 0) - (wasLive ? 1 : 0);
    t.finalCount += (nowLive ? 0 : 1) - (previous !== null && !wasLive ? 1 : 0);
    this.taskChanged = true;
    const known: Known = { record: { ...reminder, seq }, finalSeq };
    this.known.set(reminder.id, known);
    // A replacement keeps its key's place in the Map, so acceptance order holds.
    if (nowLive) this.liveSet?.set(reminder.id, known);
    else this.liveSet?.delete(reminder.id);
    const latest = rowOfReminder(t.taskKey, known.record, finalSeq);
    const waiting = this.pending.get(reminder.id);
    if (waiting !== undefined) {
      waiting.latest = latest;
    } else {
      const stored =
        previous === null ? null : rowOfReminder(t.taskKey, previous.record, previous.finalSeq);
      this.pending.set(reminder.id, { stored, latest });
    }
  }

  /** Waits until every queued lookup ran, those queued meanwhile included. */
  private async settled(): Promise<void> {
    for (;;) {
      const queue = this.queue;
      await queue;
      if (queue === this.queue) return;
    }
  }
}
