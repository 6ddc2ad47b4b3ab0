import type { ReminderStoreKey } from '@a2a-reminders/core';
import type { Kysely, RawBuilder } from 'kysely';
import { sql } from 'kysely';
import { dialectOf } from './dialect.js';
import type { ReminderDatabase } from './schema.js';
import { TASK_LEASES_TABLE } from './schema.js';

/** A lease some reaper took over, and the replica that held it before. */
export type ClaimedTaskLease = ReminderStoreKey & {
  /** The replica whose lease expired: it stopped heartbeating (R53). */
  readonly holder: string;
};

/**
 * Now in epoch ms on the database's clock. Every expiry is written and
 * compared with it, so the replicas' own clocks never matter, only the
 * lease's length. `clock_timestamp()`, not `now()`: the time of the
 * statement, not of its transaction's start. As a scalar subquery it is
 * computed once per statement, so `expires_ms < now` can search the expiry
 * index; the volatile function itself in the condition could only filter
 * every row.
 */
const DB_NOW_MS: RawBuilder<number> = sql<number>`(select (extract(epoch from clock_timestamp()) * 1000)::bigint)`;

/**
 * The leases of task executions running on the replicas of a worker that
 * share one PostgreSQL database (R53): one row per running execution, naming
 * the replica (`holder`) and when the lease runs out unless renewed. A
 * replica whose process dies stops renewing, so its leases expire and a
 * surviving replica claims them and ends their tasks.
 *
 * PostgreSQL only: leases matter only when several processes run tasks of
 * one store. A SQLite store has one worker process, which ends the tasks a
 * previous run left running at start-up instead.
 */
export class TaskLeases<DB = unknown> {
  private readonly db: Kysely<ReminderDatabase>;

  constructor(db: Kysely<DB>) {
    // The leases table is named at run time; the caller may type the instance with any schema.
    this.db = db as unknown as Kysely<ReminderDatabase>;
    const dialect = dialectOf(this.db);
    if (dialect !== 'postgres') {
      throw new Error(
        `TaskLeases needs PostgreSQL, not ${dialect}: task leases (R53) are for several worker ` +
          'processes sharing one PostgreSQL database. A SQLite store has a single worker, which ' +
          'ends the tasks a previous run left running when it starts.',
      );
    }
  }

  /**
   * Records that `holder` runs the task now, its lease running out in
   * `leaseMs`. A lease another replica held is taken over: the newest
   * execution of a task is the one that runs it.
   */
  async acquire(key: ReminderStoreKey, holder: string, leaseMs: number): Promise<void> {
    checkLeaseMs(leaseMs);
    await this.db
      .insertInto(TASK_LEASES_TABLE)
      .values({
        tenant: key.tenant,
        owner: key.owner,
        task_id: key.taskId,
        holder,
        expires_ms: expiryIn(leaseMs),
      })
      .onConflict((oc) =>
        oc.columns(['tenant', 'owner', 'task_id']).doUpdateSet((eb) => ({
          holder: eb.ref('excluded.holder'),
          expires_ms: eb.ref('excluded.expires_ms'),
        })),
      )
      .execute();
  }

  /**
   * The heartbeat: extends every lease `holder` still has by `leaseMs`, in
   * one statement, and returns their keys. A lease the holder believes it
   * has but that is missing here was lost: it expired and a reaper took it,
   * or a newer execution of the task on another replica took it over.
   */
  async renew(holder: string, leaseMs: number): Promise<ReminderStoreKey[]> {
    checkLeaseMs(leaseMs);
    const rows = await this.db
      .updateTable(TASK_LEASES_TABLE)
      .set({ expires_ms: expiryIn(leaseMs) })
      .where('holder', '=', holder)
      .returning(['tenant', 'owner', 'task_id'])
      .execute();
    return rows.map((row) => ({ tenant: row.tenant, owner: row.owner, taskId: row.task_id }));
  }

  /**
   * Hands the task's lease, if `holder` still has it, to `toHolder` for
   * `leaseMs`: a name no heartbeat renews. An execution that returned hands
   * its lease over rather than deleting it, because the SDK stores the
   * execution's last status after it returns: a replica that dies in between
   * leaves a task stored WORKING, which the handed-over lease still lets a
   * reaper end. A task found ended by then is left as it is.
   */
  async handOver(
    key: ReminderStoreKey,
    holder: string,
    toHolder: string,
    leaseMs: number,
  ): Promise<void> {
    checkLeaseMs(leaseMs);
    await this.db
      .updateTable(TASK_LEASES_TABLE)
      .set({ holder: toHolder, expires_ms: expiryIn(leaseMs) })
      .where('tenant', '=', key.tenant)
      .where('owner', '=', key.owner)
      .where('task_id', '=', key.taskId)
      .where('holder', '=', holder)
      .execute();
  }

  /**
   * The heartbeat of handed-over leases (see {@link handOver}): drops those
   * whose task the SDK has stored in a state other than SUBMITTED or WORKING
   * (or not at all), and extends the others by `leaseMs`, so that a task
   * whose last status is still on its way to the store is never reaped while
   * this replica lives. `taskTable` is the SDK's `DatabaseTaskStore` table.
   */
  async settleHandedOver(
    holder: string,
    leaseMs: number,
    taskTable: string,
  ): Promise<ReminderStoreKey[]> {
    checkLeaseMs(leaseMs);
    const leases = sql.table(TASK_LEASES_TABLE);
    const tasks = sql.table(taskTable);
    await sql`delete from ${leases} as l where l.holder = ${holder} and not exists (
        select 1 from ${tasks} as t
        where t.tenant = l.tenant and t.owner = l.owner and t.id = l.task_id
          and t.status_state in ('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'))`.execute(this.db);
    return this.renew(holder, leaseMs);
  }

  /** The holder of the task's lease if it has not expired (R74). */
  async liveHolder(key: ReminderStoreKey): Promise<string | undefined> {
    const row = await this.db
      .selectFrom(TASK_LEASES_TABLE)
      .select('holder')
      .where('tenant', '=', key.tenant)
      .where('owner', '=', key.owner)
      .where('task_id', '=', key.taskId)
      .where('expires_ms', '>', DB_NOW_MS)
      .executeTakeFirst();
    return row?.holder;
  }

  /**
   * R71: locks the task's lease row for the rest of the transaction `q` and
   * says whether one of `holders` still has it unexpired. A save of the
   * task made in that transaction after this answered true commits before
   * any reaper can claim the lease, and none is made once it is claimed.
   */
  static async stillHeld(
    q: Kysely<ReminderDatabase>,
    key: ReminderStoreKey,
    holders: readonly string[],
  ): Promise<boolean> {
    const row = await q
      .selectFrom(TASK_LEASES_TABLE)
      .select('holder')
      .where('tenant', '=', key.tenant)
      .where('owner', '=', key.owner)
      .where('task_id', '=', key.taskId)
      .where('holder', 'in', holders)
      .where('expires_ms', '>', DB_NOW_MS)
      .forUpdate()
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Extends a claim by `claimMs` if `claimant` still has it, and says
   * whether it did. A reaper checks just before ending a task, so it never
   * ends one that a new execution took over meanwhile, nor one whose claim
   * ran out and another reaper took (R53).
   */
  async extendClaim(key: ReminderStoreKey, claimant: string, claimMs: number): Promise<boolean> {
    checkLeaseMs(claimMs);
    const rows = await this.db
      .updateTable(TASK_LEASES_TABLE)
      .set({ expires_ms: expiryIn(claimMs) })
      .where('tenant', '=', key.tenant)
      .where('owner', '=', key.owner)
      .where('task_id', '=', key.taskId)
      .where('holder', '=', claimant)
      .returning('task_id')
      .execute();
    return rows.length > 0;
  }

  /** Deletes the task's lease if `holder` still has it (never one another replica took over). */
  async release(key: ReminderStoreKey, holder: string): Promise<void> {
    await this.db
      .deleteFrom(TASK_LEASES_TABLE)
      .where('tenant', '=', key.tenant)
      .where('owner', '=', key.owner)
      .where('task_id', '=', key.taskId)
      .where('holder', '=', holder)
      .execute();
  }

  /**
   * Takes over up to `limit` expired leases for `claimant`, for `claimMs`,
   * and returns them with the holder each had. One statement: the
   * subselect locks the expired rows `FOR UPDATE SKIP LOCKED`, so
   * concurrent reapers split them and never claim the same lease; a row
   * another reaper already took is no longer expired in this statement's
   * recheck.
   *
   * The claim is a lease, not a deletion, so that ending the task is
   * retried: the claimant releases it once the task is ended; if it fails
   * or dies first, the claim expires in turn and any reaper claims it again.
   * A claimant name no heartbeat renews keeps a failed claim from living
   * on.
   */
  async claimExpired(
    claimant: string,
    limit: number,
    claimMs: number,
  ): Promise<ClaimedTaskLease[]> {
    checkLeaseMs(claimMs);
    if (!Number.isSafeInteger(limit) || limit < 1) {
      throw new RangeError(`claimExpired: limit must be a positive integer, not ${limit}`);
    }
    // Joined on the physical row the subselect locked (which cannot move
    // while locked): a lookup per claimed row, where a join on the key lets
    // the planner scan the whole table for a large batch.
    const { rows } = await sql<{ tenant: string; owner: string; task_id: string; holder: string }>`
      update ${sql.table(TASK_LEASES_TABLE)} as lease
      set holder = ${claimant}, expires_ms = ${expiryIn(claimMs)}
      from (
        select ctid as row_id, holder from ${sql.table(TASK_LEASES_TABLE)}
        where expires_ms < ${DB_NOW_MS}
        order by expires_ms
        limit ${limit}
        for update skip locked
      ) as expired
      where lease.ctid = expired.row_id
      returning lease.tenant, lease.owner, lease.task_id, expired.holder`.execute(this.db);
    return rows.map((row) => ({
      tenant: row.tenant,
      owner: row.owner,
      taskId: row.task_id,
      holder: row.holder,
    }));
  }
}

function expiryIn(leaseMs: number): RawBuilder<number> {
  return sql<number>`${DB_NOW_MS} + ${leaseMs}::bigint`;
}

function checkLeaseMs(leaseMs: number): void {
  if (!Number.isSafeInteger(leaseMs) || leaseMs < 1) {
    throw new RangeError(`a task lease lasts a positive whole number of ms, not ${leaseMs}`);
  }
}
