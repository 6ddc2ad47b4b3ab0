import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { OpenDatabaseOptions } from './connect.js';
import { openReminderDatabase } from './connect.js';
import type { ReminderDialect } from './dialect.js';
import { migrateReminderStore } from './migrations.js';

/**
 * The PostgreSQL server tests use, as a URL of its maintenance database
 * (`A2A_REMINDERS_TEST_PG_URL`; default: the local server, trust auth).
 */
export function testPostgresAdminUrl(): string {
  return process.env.A2A_REMINDERS_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
}

/** A database of its own for one test file or run, created empty and dropped by `drop()`. */
export interface TestDatabase {
  readonly dialect: ReminderDialect;
  /** `sqlite:<file>` or `postgres://…/<random name>`: what a child process opens. */
  readonly url: string;
  /** Opens another Kysely instance on it (the caller destroys it). */
  open(options?: OpenDatabaseOptions): Promise<Kysely<unknown>>;
  /** Drops the database (PostgreSQL, connections forced closed) or deletes the file. */
  drop(): Promise<void>;
}

/**
 * Creates a fresh database with a random name, so test runs never see each
 * other's rows: a PostgreSQL database on the test server, or a SQLite file
 * in a new temporary directory. `migrate` (default true) creates the
 * reminder tables.
 */
export async function createTestDatabase(
  dialect: ReminderDialect,
  { migrate = true }: { readonly migrate?: boolean } = {},
): Promise<TestDatabase> {
  const created = dialect === 'postgres' ? await createPostgres() : createSqlite();
  // `drop()` forces the database's connections closed: a pool a test has not
  // destroyed yet then reports its idle ones (57P01), which is expected then.
  let dropping = false;
  const onIdleConnectionError = (error: Error) => {
    if (dropping && (error as { code?: string }).code === '57P01') return;
    console.error('task reminders: an idle database connection failed; it is replaced', error);
  };
  if (migrate) {
    const db = await openReminderDatabase(created.url);
    try {
      await migrateReminderStore(db);
    } finally {
      await db.destroy();
    }
  }
  return {
    dialect,
    url: created.url,
    open: (options) => openReminderDatabase(created.url, { onIdleConnectionError, ...options }),
    drop: () => {
      dropping = true;
      return created.drop();
    },
  };
}

function createSqlite(): { url: string; drop(): Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-reminders-test-'));
  return {
    url: `sqlite:${join(dir, 'reminders.db')}`,
    async drop() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function createPostgres(): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = testPostgresAdminUrl();
  const name = `a2a_reminders_test_${randomBytes(6).toString('hex')}`;
  await asAdmin(adminUrl, (admin) => sql`create database ${sql.id(name)}`.execute(admin));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await asAdmin(adminUrl, (admin) =>
        sql`drop database if exists ${sql.id(name)} with (force)`.execute(admin),
      );
    },
  };
}

async function asAdmin(
  adminUrl: string,
  run: (admin: Kysely<unknown>) => Promise<unknown>,
): Promise<void> {
  const admin = await openReminderDatabase(adminUrl, { poolSize: 1 });
  try {
    await run(admin);
  } finally {
    await admin.destroy();
  }
}
