import type { ReminderStoreKey } from '@a2a-reminders/core';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { ReminderDialect } from './dialect.js';
import type { ReminderDatabase, ReminderTaskRow } from './schema.js';
import { REMINDER_TASKS_TABLE } from './schema.js';

/**
 * Runs `body` in one database transaction that holds the task's lock, and
 * commits only if it returns.
 *
 * PostgreSQL: READ COMMITTED, and the task's row locked `SELECT … FOR
 * UPDATE` before anything else. Every transaction on the task takes the same
 * lock first, so once it is held every earlier writer of the task has
 * committed, and each later statement (a fresh snapshot under READ
 * COMMITTED) sees their writes while no one else can write the task until
 * this commits: the task's operations are serial (R19) with no
 * serialization failure to retry, which REPEATABLE READ or SERIALIZABLE
 * would raise here. Other tasks' rows are not locked, so different tasks
 * proceed in parallel. A task's first transaction inserts the row
 * (`ON CONFLICT DO NOTHING`); a concurrent first one waits on that insert
 * and then locks the committed row.
 *
 * SQLite: `BEGIN IMMEDIATE` takes the database's write lock at the start,
 * so a transaction never reads under a lock it then fails to upgrade
 * (SQLITE_BUSY mid-transaction, which a plain deferred BEGIN risks when two
 * processes write). Another process waits for it up to the connection's
 * busy timeout; in this process Kysely's single SQLite connection already
 * serialises transactions. SQLite has one writer at a time, so different
 * tasks wait for each other too.
 */
export async function inTaskTransaction<T>(
  db: Kysely<ReminderDatabase>,
  dialect: ReminderDialect,
  key: ReminderStoreKey,
  body: (q: Kysely<ReminderDatabase>, task: ReminderTaskRow) => Promise<T>,
): Promise<T> {
  if (dialect === 'postgres') {
    return db.transaction().execute(async (trx) => body(trx, await lockPostgres(trx, key)));
  }
  return inImmediateTransaction(db, async (conn) => body(conn, await lockSqlite(conn, key)));
}

/**
 * SQLite: runs `body` between `BEGIN IMMEDIATE` and `COMMIT` on one held
 * connection (Kysely's transaction API issues a deferred `BEGIN`).
 */
export async function inImmediateTransaction<T>(
  db: Kysely<ReminderDatabase>,
  body: (conn: Kysely<ReminderDatabase>) => Promise<T>,
): Promise<T> {
  return db.connection().execute(async (conn) => {
    await sql`begin immediate`.execute(conn);
    try {
      const result = await body(conn);
      await sql`commit`.execute(conn);
      return result;
    } catch (error) {
      // Leaves the shared connection outside any transaction whatever failed.
      await sql`rollback`.execute(conn).catch(() => {});
      throw error;
    }
  });
}

function taskRow(q: Kysely<ReminderDatabase>, key: ReminderStoreKey) {
  return q
    .selectFrom(REMINDER_TASKS_TABLE)
    .selectAll()
    .where('tenant', '=', key.tenant)
    .where('owner', '=', key.owner)
    .where('task_id', '=', key.taskId);
}

function insertTaskRow(q: Kysely<ReminderDatabase>, key: ReminderStoreKey) {
  return q
    .insertInto(REMINDER_TASKS_TABLE)
    .values({ tenant: key.tenant, owner: key.owner, task_id: key.taskId })
    .onConflict((oc) => oc.columns(['tenant', 'owner', 'task_id']).doNothing())
    .returningAll();
}

async function lockPostgres(
  trx: Kysely<ReminderDatabase>,
  key: ReminderStoreKey,
): Promise<ReminderTaskRow> {
  const locked = await taskRow(trx, key).forUpdate().executeTakeFirst();
  if (locked !== undefined) return locked;
  // A row this transaction inserts is locked by it until commit.
  const inserted = await insertTaskRow(trx, key).executeTakeFirst();
  if (inserted !== undefined) return inserted;
  // Another transaction inserted it first and has committed by now.
  return taskRow(trx, key).forUpdate().executeTakeFirstOrThrow();
}

async function lockSqlite(
  conn: Kysely<ReminderDatabase>,
  key: ReminderStoreKey,
): Promise<ReminderTaskRow> {
  // The write lock is already held (BEGIN IMMEDIATE): no one else can insert it meanwhile.
  const row = await taskRow(conn, key).executeTakeFirst();
  if (row !== undefined) return row;
  return insertTaskRow(conn, key).executeTakeFirstOrThrow();
}
