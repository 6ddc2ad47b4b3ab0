import type { Kysely, Migration } from 'kysely';
import { sql } from 'kysely';
import { dialectOf } from '../dialect.js';
import { isLive } from '../live-predicate.js';
import { REMINDER_TASKS_TABLE, REMINDERS_TABLE } from '../schema.js';

// Column types per engine. PostgreSQL keys compare bytewise (collate "C"),
// as the SDK's own tables do, so order and equality never depend on the
// server's locale; SQLite's default collation is already binary.

/**
 * The first schema: one row per task (lock, counters, end mark) and one per
 * retained record, with an index for each hot query so none scans a task's
 * records (package README: query plans).
 */
export const createReminderTables: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    const postgres = dialectOf(db) === 'postgres';
    const key = postgres ? sql.raw('text collate "C"') : sql.raw('text');
    const big = postgres ? sql.raw('bigint') : sql.raw('integer');

    let tasks = db.schema.createTable(REMINDER_TASKS_TABLE);
    tasks = postgres
      ? tasks.addColumn('task_key', 'bigint', (c) => c.generatedByDefaultAsIdentity().primaryKey())
      : // AUTOINCREMENT: a swept task's key is never handed to a new task.
        tasks.addColumn('task_key', 'integer', (c) => c.primaryKey().autoIncrement());
    await tasks
      .addColumn('tenant', key, (c) => c.notNull())
      .addColumn('owner', key, (c) => c.notNull())
      .addColumn('task_id', key, (c) => c.notNull())
      .addColumn('turn', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('last_seq', big, (c) => c.notNull().defaultTo(0))
      .addColumn('last_final_seq', big, (c) => c.notNull().defaultTo(0))
      .addColumn('live_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('final_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('ended_task_state', 'text')
      .addColumn('ended_time_ms', big)
      .addColumn('purge_after_ms', big)
      .addUniqueConstraint(`${REMINDER_TASKS_TABLE}_scope_key`, ['tenant', 'owner', 'task_id'])
      .execute();
    // R35: the sweep finds ended tasks past retention without visiting live ones.
    await db.schema
      .createIndex(`${REMINDER_TASKS_TABLE}_purge_idx`)
      .on(REMINDER_TASKS_TABLE)
      .column('purge_after_ms')
      .where(sql<boolean>`purge_after_ms is not null`)
      .execute();

    await db.schema
      .createTable(REMINDERS_TABLE)
      .addColumn('task_key', big, (c) => c.notNull())
      .addColumn('id', key, (c) => c.notNull())
      .addColumn('seq', big, (c) => c.notNull())
      .addColumn('final_seq', big)
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('dedupe_key', key, (c) => c.notNull())
      .addColumn('ttl_turns', 'integer', (c) => c.notNull())
      .addColumn('role_hint', 'text', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('metadata', 'text')
      .addColumn('create_time_ms', big, (c) => c.notNull())
      .addColumn('end_time_ms', big)
      .addColumn('first_turn', 'integer')
      .addColumn('turns_surfaced', 'integer', (c) => c.notNull())
      .addColumn('displaced_by', 'text')
      .addColumn('accepted_displaced_ids', 'text', (c) => c.notNull())
      .addColumn('accepted_task_state', 'text', (c) => c.notNull())
      // Idempotent replay and cancel look a record up by id (R13, R23).
      .addPrimaryKeyConstraint(`${REMINDERS_TABLE}_pkey`, ['task_key', 'id'])
      .execute();
    // List pages, in acceptance order (R49), and a task's records for a sweep.
    await db.schema
      .createIndex(`${REMINDERS_TABLE}_seq_idx`)
      .unique()
      .on(REMINDERS_TABLE)
      .columns(['task_key', 'seq'])
      .execute();
    // Turn boundaries, inject's dedupe (R15), live-only pages and task end
    // read only live records (R19, R27, R49). Dedupe filters the live set (at
    // most the live quota, R17) by key in the transaction: no index of its own.
    await db.schema
      .createIndex(`${REMINDERS_TABLE}_live_idx`)
      .on(REMINDERS_TABLE)
      .columns(['task_key', 'seq'])
      .where(isLive())
      .execute();
    // R48: the oldest final records of a task, in the order they became final.
    await db.schema
      .createIndex(`${REMINDERS_TABLE}_final_idx`)
      .on(REMINDERS_TABLE)
      .columns(['task_key', 'final_seq'])
      .where(sql<boolean>`final_seq is not null`)
      .execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable(REMINDERS_TABLE).ifExists().execute();
    await db.schema.dropTable(REMINDER_TASKS_TABLE).ifExists().execute();
  },
};
