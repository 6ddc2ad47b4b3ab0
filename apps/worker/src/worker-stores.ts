import { resolve } from 'node:path';
import type { PushNotificationStore, TaskStore } from '@a2a-js/sdk/server';
import { InMemoryPushNotificationStore, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { DatabasePushNotificationStore, DatabaseTaskStore } from '@a2a-js/sdk/server/database';
import type { ReminderChangeSignal, ReminderStore } from '@a2a-reminders/core';
import { InMemoryReminderStore } from '@a2a-reminders/core';
import {
  DatabaseReminderStore,
  GuardedTaskStore,
  migrateReminderStore,
  migrateSdkPushConfigTable,
  migrateSdkTaskTable,
  openReminderDatabase,
  PostgresChangeSignal,
  parseDatabaseUrl,
} from '@a2a-reminders/database';
import type { Kysely } from 'kysely';
import { SettlingTaskStore } from './settling-task-store.js';

/** The worker's default store: a SQLite file in the working directory, printed at start. */
export const DEFAULT_STORE_FILE = 'a2a-reminders-worker.sqlite';

/** Where the worker keeps tasks (the SDK's TaskStore) and reminders. */
export interface WorkerStores {
  /** `memory`, or the database URL with a SQLite file made absolute. */
  readonly location: string;
  readonly taskStore: SettlingTaskStore;
  /**
   * The SDK's task store without the guard, for the lease keeper's reaper:
   * it ends tasks other replicas ran, under no lease of its own (R53).
   */
  readonly reaperTaskStore: TaskStore;
  /** The guarded store under `taskStore`, to fence with a lease keeper (R71); undefined for `memory`. */
  readonly guardedTaskStore: GuardedTaskStore | undefined;
  readonly reminderStore: ReminderStore;
  /** The push notification configs callers register on tasks, beside the tasks. */
  readonly pushStore: PushNotificationStore;
  /** The database both stores use; undefined for `memory`. */
  readonly db: Kysely<unknown> | undefined;
  /**
   * PostgreSQL only: replicas of the worker may share the database, so
   * events reach the replica running a task from any other (R52).
   */
  readonly changeSignal: ReminderChangeSignal | undefined;
  /**
   * PostgreSQL only: connections of the task-lease heartbeat's own (R53),
   * so that requests queued for the main pool never delay it past a lease
   * and make a live replica look dead.
   */
  readonly leaseDb: Kysely<unknown> | undefined;
  close(): Promise<void>;
}

/** `memory`, `sqlite:<file>` or `postgres://…`; a SQLite file path is resolved against the cwd. */
export function storeLocation(url: string): string {
  if (url === 'memory') return url;
  const parsed = parseDatabaseUrl(url);
  if (parsed.dialect === 'sqlite' && parsed.target !== ':memory:') {
    return `sqlite:${resolve(parsed.target)}`;
  }
  return url;
}

/**
 * Opens the worker's stores. A database gets the SDK's task and push config
 * tables (its `a2a-db` migrations) and the reminder tables (this
 * repository's migrations) first, so a fresh file or database works with no
 * set-up step; one Kysely instance then serves the SDK's `DatabaseTaskStore`
 * and `DatabasePushNotificationStore` and the `DatabaseReminderStore`, so
 * tasks, push configs and reminders live in one database.
 */
/** How {@link openWorkerStores} opens a database. */
export interface WorkerStoreOptions {
  /** PostgreSQL: the lease pool's statement timeout (R70; default 2 000 ms). */
  readonly leaseStatementTimeoutMs?: number;
  /** SQLite: how long a call waits for another process's write lock (R69). */
  readonly sqliteBusyMs?: number;
  /** SQLite: `full` syncs every commit. */
  readonly sqliteSync?: 'normal' | 'full';
}

export async function openWorkerStores(
  url: string,
  options: WorkerStoreOptions = {},
): Promise<WorkerStores> {
  const location = storeLocation(url);
  if (location === 'memory') {
    const memoryTasks = new InMemoryTaskStore();
    return {
      location,
      taskStore: new SettlingTaskStore(memoryTasks),
      reaperTaskStore: memoryTasks,
      guardedTaskStore: undefined,
      reminderStore: new InMemoryReminderStore(),
      pushStore: new InMemoryPushNotificationStore(),
      db: undefined,
      changeSignal: undefined,
      leaseDb: undefined,
      close: async () => {},
    };
  }
  await migrateSdkTaskTable(location);
  await migrateSdkPushConfigTable(location);
  const db = await openReminderDatabase(location, {
    applicationName: 'a2a-reminders main',
    ...(options.sqliteBusyMs === undefined ? {} : { busyTimeoutMs: options.sqliteBusyMs }),
    synchronous: options.sqliteSync === 'full' ? 'FULL' : 'NORMAL',
  });
  let signal: PostgresChangeSignal | undefined;
  let leaseDb: Kysely<unknown> | undefined;
  try {
    await migrateReminderStore(db);
    if (parseDatabaseUrl(location).dialect === 'postgres') {
      signal = await PostgresChangeSignal.start(location);
      // R70: a heartbeat that does not answer within a quarter lease fails,
      // its connection is dropped, and the next tick uses a fresh one.
      leaseDb = await openReminderDatabase(location, {
        poolSize: 2,
        applicationName: 'a2a-reminders lease',
        statementTimeoutMs: options.leaseStatementTimeoutMs ?? 2_000,
      });
    }
  } catch (error) {
    await signal?.close();
    await db.destroy();
    throw error;
  }
  // R69, R71, R72: store failures typed, saves retried and, on replicas, fenced.
  const guarded = new GuardedTaskStore({ db, taskStoreOn: (on) => new DatabaseTaskStore(on) });
  return {
    location,
    taskStore: new SettlingTaskStore(guarded),
    reaperTaskStore: new DatabaseTaskStore(db),
    guardedTaskStore: guarded,
    reminderStore: new DatabaseReminderStore(db),
    pushStore: new DatabasePushNotificationStore(db),
    db,
    changeSignal: signal,
    leaseDb,
    close: async () => {
      await signal?.close();
      await leaseDb?.destroy();
      await db.destroy();
    },
  };
}
