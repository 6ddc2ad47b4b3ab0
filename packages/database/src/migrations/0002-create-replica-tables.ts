import type { Kysely, Migration } from 'kysely';
import { sql } from 'kysely';
import { dialectOf } from '../dialect.js';
import { REMINDER_EVENTS_TABLE, REMINDER_TASKS_TABLE, TASK_LEASES_TABLE } from '../schema.js';

/**
 * Replicas (spec: Multi-replica deployments): a log of each task's committed
 * event batches, read by the replica holding the task's streams (R52, R54),
 * and a lease per running execution with its expiry (R53).
 */
export const createReplicaTables: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    const postgres = dialectOf(db) === 'postgres';
    const key = postgres ? sql.raw('text collate "C"') : sql.raw('text');
    const big = postgres ? sql.raw('bigint') : sql.raw('integer');
    const bytes = postgres ? sql.raw('bytea') : sql.raw('blob');

    // The last event batch position given out for the task; never goes back.
    await db.schema
      .alterTable(REMINDER_TASKS_TABLE)
      .addColumn('last_event_seq', big, (c) => c.notNull().defaultTo(0))
      .execute();

    await db.schema
      .createTable(REMINDER_EVENTS_TABLE)
      .addColumn('task_key', big, (c) => c.notNull())
      .addColumn('seq', big, (c) => c.notNull())
      // One TaskReminderEventBatch, protobuf binary.
      .addColumn('batch', bytes, (c) => c.notNull())
      .addColumn('create_time_ms', big, (c) => c.notNull())
      // Catch-up reads a task's batches after a position (R54).
      .addPrimaryKeyConstraint(`${REMINDER_EVENTS_TABLE}_pkey`, ['task_key', 'seq'])
      .execute();
    // The sweep drops batches past the log's retention.
    await db.schema
      .createIndex(`${REMINDER_EVENTS_TABLE}_time_idx`)
      .on(REMINDER_EVENTS_TABLE)
      .column('create_time_ms')
      .execute();

    await db.schema
      .createTable(TASK_LEASES_TABLE)
      .addColumn('tenant', key, (c) => c.notNull())
      .addColumn('owner', key, (c) => c.notNull())
      .addColumn('task_id', key, (c) => c.notNull())
      .addColumn('holder', key, (c) => c.notNull())
      .addColumn('expires_ms', big, (c) => c.notNull())
      .addPrimaryKeyConstraint(`${TASK_LEASES_TABLE}_pkey`, ['tenant', 'owner', 'task_id'])
      .execute();
    // Reapers look for expired leases; heartbeats renew a holder's leases.
    await db.schema
      .createIndex(`${TASK_LEASES_TABLE}_expiry_idx`)
      .on(TASK_LEASES_TABLE)
      .column('expires_ms')
      .execute();
    await db.schema
      .createIndex(`${TASK_LEASES_TABLE}_holder_idx`)
      .on(TASK_LEASES_TABLE)
      .column('holder')
      .execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable(TASK_LEASES_TABLE).ifExists().execute();
    await db.schema.dropTable(REMINDER_EVENTS_TABLE).ifExists().execute();
    await db.schema.alterTable(REMINDER_TASKS_TABLE).dropColumn('last_event_seq').execute();
  },
};
