import type { ReminderStore } from '@a2a-reminders/core';
import { DatabaseReminderStore } from '@a2a-reminders/database';
import type { TestDatabase } from '@a2a-reminders/database/testing';
import { createTestDatabase } from '@a2a-reminders/database/testing';
import type { Kysely } from 'kysely';

/**
 * The reminder store every stack of this run uses, a parameter of the whole
 * suite (issue 9): `CONFORMANCE_STORE` = `memory` (default), `sqlite` or
 * `postgres`. vitest.config.ts runs the same test files once per value.
 */
export type StoreParameter = 'memory' | 'sqlite' | 'postgres';

export function storeParameter(): StoreParameter {
  const value = process.env.CONFORMANCE_STORE ?? 'memory';
  if (value === 'memory' || value === 'sqlite' || value === 'postgres') return value;
  throw new Error(`CONFORMANCE_STORE must be memory, sqlite or postgres, got "${value}"`);
}

interface SharedDatabase {
  readonly database: TestDatabase;
  readonly db: Kysely<unknown>;
}

let shared: Promise<SharedDatabase> | undefined;

/**
 * The reminder store for a stack: undefined for `memory` (the service's own
 * in-memory store, new per stack), else a store on this test file's
 * database, created and migrated on first use and dropped after the file
 * (store-setup.ts), so runs and files never share rows. Stacks of one file
 * share it: every case creates its own tasks (ids the SDK makes unique),
 * and cases run one at a time, so no case sees another's records.
 */
export async function stackStore(): Promise<ReminderStore | undefined> {
  const kind = storeParameter();
  if (kind === 'memory') return undefined;
  shared ??= (async () => {
    const database = await createTestDatabase(kind);
    return { database, db: await database.open() };
  })();
  return new DatabaseReminderStore((await shared).db);
}

/** Drops this test file's database, if it made one. */
export async function dropSharedDatabase(): Promise<void> {
  const made = shared;
  shared = undefined;
  if (made === undefined) return;
  const { database, db } = await made;
  await db.destroy();
  await database.drop();
}
