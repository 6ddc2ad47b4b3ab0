import type { ReminderStore } from '@a2a-reminders/core';
import { InMemoryReminderStore } from '@a2a-reminders/core';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { DatabaseReminderStore } from '../database-reminder-store.js';
import type { TestDatabase } from '../test-database.js';
import { createTestDatabase } from '../test-database.js';

/** The stores every contract test runs on: the reference, and each SQL engine. */
export const STORE_KINDS = ['memory', 'sqlite', 'postgres'] as const;
export type StoreKind = (typeof STORE_KINDS)[number];

/**
 * One store of a kind for a test file: `open()` in beforeAll (a database of
 * its own, migrated), `reset()` before each test (empty tables), `close()`
 * in afterAll (dropped).
 */
export class StoreFixture {
  private database: TestDatabase | undefined;
  private db: Kysely<unknown> | undefined;
  private current: ReminderStore | undefined;

  constructor(readonly kind: StoreKind) {}

  async open(): Promise<void> {
    if (this.kind === 'memory') return;
    this.database = await createTestDatabase(this.kind);
    this.db = await this.database.open();
  }

  /** A fresh, empty store. */
  async reset(): Promise<ReminderStore> {
    if (this.db === undefined) {
      this.current = new InMemoryReminderStore();
      return this.current;
    }
    await sql`delete from a2a_reminders`.execute(this.db);
    await sql`delete from a2a_reminder_tasks`.execute(this.db);
    this.current = new DatabaseReminderStore(this.db);
    return this.current;
  }

  /**
   * Another store over the same database, as another replica (or process)
   * has: it shares none of the first one's in-process queues, so what
   * serializes the two is the database's lock. The in-memory store has no
   * other instance to share its data: the same one.
   */
  twin(): ReminderStore {
    if (this.db === undefined) return this.store;
    return new DatabaseReminderStore(this.db);
  }

  get store(): ReminderStore {
    if (this.current === undefined) throw new Error('reset() the fixture first');
    return this.current;
  }

  /** The database's URL, for a second process; undefined for memory. */
  get url(): string | undefined {
    return this.database?.url;
  }

  async close(): Promise<void> {
    await this.db?.destroy();
    await this.database?.drop();
  }
}
