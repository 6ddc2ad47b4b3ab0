import type { Kysely, Migration, MigrationResultSet } from 'kysely';
import { Migrator, NO_MIGRATIONS, sql } from 'kysely';
import { sqliteBusyTimeoutOf } from './connect.js';
import { dialectOf } from './dialect.js';
import { createReminderTables } from './migrations/0001-create-reminder-tables.js';
import { createReplicaTables } from './migrations/0002-create-replica-tables.js';
import { addForwardingColumns } from './migrations/0003-add-forwarding-columns.js';
import { REMINDER_MIGRATIONS_LOCK_TABLE, REMINDER_MIGRATIONS_TABLE } from './schema.js';
import { isSqliteBusy, withStoreRetry } from './store-errors.js';

/**
 * Every migration of this package's tables, by name; Kysely applies them in
 * name order. Shipped with the package, like the SDK's task-store migrations.
 */
export const reminderStoreMigrations: Readonly<Record<string, Migration>> = Object.freeze({
  '0001_create_reminder_tables': createReminderTables,
  '0002_create_replica_tables': createReplicaTables,
  '0003_add_forwarding_columns': addForwardingColumns,
});

/**
 * A Kysely Migrator over this package's migrations, with a ledger and lock
 * table of their own, so it never touches the SDK's or the application's.
 */
export function reminderMigrator(db: Kysely<unknown>, schema?: string): Migrator {
  return new Migrator({
    db,
    provider: { getMigrations: async () => ({ ...reminderStoreMigrations }) },
    migrationTableName: REMINDER_MIGRATIONS_TABLE,
    migrationLockTableName: REMINDER_MIGRATIONS_LOCK_TABLE,
    ...(schema === undefined ? {} : { migrationTableSchema: schema }),
  });
}

/**
 * The migrator for the schema the connection works in. On PostgreSQL the
 * ledger is named with its schema (`current_schema()`, from `search_path`):
 * Kysely looks for it across every schema otherwise, and would take another
 * schema's ledger for this one's.
 */
async function migratorHere(db: Kysely<unknown>): Promise<Migrator> {
  if (dialectOf(db) !== 'postgres') return reminderMigrator(db);
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  return reminderMigrator(db, rows[0]?.schema);
}

/** Where one migration of this package stands in a database. */
export interface ReminderMigrationState {
  readonly name: string;
  /** When it was applied; undefined while pending. */
  readonly executedAt: Date | undefined;
}

/**
 * Brings the reminder tables to the latest migration; safe to run again and
 * from several processes at once (Kysely's migration lock). Throws when a
 * migration fails, naming it.
 */
export async function migrateReminderStore(db: Kysely<unknown>): Promise<readonly string[]> {
  // Another process may hold SQLite's write lock a moment (its own migration,
  // a backup): waited out here, as the store does (R69).
  const budgetMs = sqliteBusyTimeoutOf(db);
  return withStoreRetry(
    async () => appliedNames(await (await migratorHere(db)).migrateToLatest()),
    (error, _tries, elapsedMs) => (isSqliteBusy(error) && elapsedMs < budgetMs ? 50 : undefined),
  );
}

/** Reverts the latest applied migration, or every one with `'base'`. */
export async function revertReminderStore(
  db: Kysely<unknown>,
  to: 'previous' | 'base' = 'previous',
): Promise<readonly string[]> {
  const migrator = await migratorHere(db);
  return appliedNames(
    to === 'base' ? await migrator.migrateTo(NO_MIGRATIONS) : await migrator.migrateDown(),
  );
}

/** Every migration of this package and whether the database has it. */
export async function reminderMigrationStatus(
  db: Kysely<unknown>,
): Promise<readonly ReminderMigrationState[]> {
  const migrations = await (await migratorHere(db)).getMigrations();
  return migrations.map(({ name, executedAt }) => ({ name, executedAt }));
}

function appliedNames(result: MigrationResultSet): readonly string[] {
  if (result.error !== undefined) {
    const failed = result.results?.find((r) => r.status === 'Error');
    const where = failed === undefined ? '' : ` in migration "${failed.migrationName}"`;
    throw new Error(`reminder store migration failed${where}: ${String(result.error)}`, {
      cause: result.error,
    });
  }
  return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
