import type { Kysely, Migration } from 'kysely';
import { REMINDERS_TABLE } from '../schema.js';

/**
 * Forwarding (spec §15): a record keeps its reminder's provenance (R58, part
 * of its content, R59) and the copies it was forwarded as (R63). Both are
 * JSON text, null when absent; one ALTER per column, as SQLite takes them.
 */
export const addForwardingColumns: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable(REMINDERS_TABLE).addColumn('provenance', 'text').execute();
    await db.schema.alterTable(REMINDERS_TABLE).addColumn('forwards', 'text').execute();
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable(REMINDERS_TABLE).dropColumn('forwards').execute();
    await db.schema.alterTable(REMINDERS_TABLE).dropColumn('provenance').execute();
  },
};
