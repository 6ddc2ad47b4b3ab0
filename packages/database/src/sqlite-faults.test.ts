import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Task } from '@a2a-js/sdk';
import { Task as TaskCodec } from '@a2a-js/sdk';
import type { User } from '@a2a-js/sdk/server';
import { ServerCallContext } from '@a2a-js/sdk/server';
import { DatabaseTaskStore } from '@a2a-js/sdk/server/database';
import type { ReminderStoreKey, ReminderWrite } from '@a2a-reminders/core';
import { ReminderError, TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import type { Ext4FileSystem, MountedTmpfs } from '@a2a-reminders/test-support';
import {
  canMount,
  fillFileSystem,
  lockSqliteFromAnotherProcess,
  mountExt4,
  mountTmpfs,
} from '@a2a-reminders/test-support';
import type { Kysely } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { OpenDatabaseOptions } from './connect.js';
import { openReminderDatabase } from './connect.js';
import { DatabaseReminderStore } from './database-reminder-store.js';
import { GuardedTaskStore } from './guarded-task-store.js';
import { migrateReminderStore } from './migrations.js';
import { migrateSdkTaskTable } from './sdk-migrations.js';
import { isStoreUnavailable } from './store-errors.js';

// R69 with real SQLite faults, on the store over openReminderDatabase:
// - locked: another PROCESS holds the write lock (BEGIN EXCLUSIVE) past the
//   store's busy timeout (SQLITE_BUSY);
// - full: the file system (a tiny tmpfs) is filled by another file
//   (SQLITE_FULL);
// - read-only: a tmpfs cannot be remounted read-only while a connection
//   holds the file open for writing (the kernel answers EBUSY), so the
//   read-only cases are a store opened on a read-only mount
//   (SQLITE_CANTOPEN, SQLITE_READONLY) and an ext4 file system the kernel
//   itself remounts read-only under a live store (errors=remount-ro, an
//   error raised through sysfs; SQLITE_IOERR_WRITE).
// Each fault must fail the call with ReminderError UNAVAILABLE, never
// INTERNAL (before R69 the driver's error went through raw, which the
// bindings answer INTERNAL), never end the process (vitest fails a file on an
// unhandled error), and lose nothing committed; once the fault ends the
// store serves again. Deadlines only bound a failure; every wait is on an
// observed state (a line from the child, a failed write), none on elapsed
// time. Mounting needs root: without it the file is skipped.

const BETTER_SQLITE3 = createRequire(import.meta.url).resolve('better-sqlite3');
/** The store's busy timeout in the lock case: short, so the test is quick; nothing depends on it. */
const BUSY_TIMEOUT_MS = 100;
/** How long a failing call may take before the test calls it a hang. */
const HANG_GUARD_MS = 60_000;

/** Whether this process may mount (root, or a container allowing it). */
const CAN_MOUNT = canMount();

/** Undone after each test, last first: processes, then databases, then mounts. */
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) {
    try {
      await cleanup();
    } catch (error) {
      console.error('sqlite-faults cleanup failed', error);
    }
  }
});

/** A fresh tmpfs of `size` (e.g. `1m`), unmounted (lazily if still held) after the test. */
function freshTmpfs(size: string): MountedTmpfs {
  const tmpfs = mountTmpfs({ size, prefix: 'sqlite-faults-' });
  cleanups.push(() => tmpfs.remove());
  return tmpfs;
}

/**
 * A 16 MiB ext4 image on a loop device, mounted errors=remount-ro; torn down
 * after the test. A string says why it cannot be made here (no loop
 * devices, no e2fsprogs).
 */
function freshExt4(): Ext4FileSystem | string {
  const ext4 = mountExt4({ prefix: 'sqlite-faults-ext4-' });
  if (typeof ext4 !== 'string') cleanups.push(() => ext4.remove());
  return ext4;
}

/** An empty database with the reminder tables, closed again (its WAL checkpointed away). */
async function migratedDatabase(dir: string): Promise<string> {
  const file = join(dir, 'reminders.db');
  const db = await openReminderDatabase(`sqlite:${file}`);
  try {
    await migrateReminderStore(db);
  } finally {
    await db.destroy();
  }
  return file;
}

interface OpenStore {
  readonly db: Kysely<unknown>;
  readonly store: DatabaseReminderStore;
  /** Closes its connection (idempotent; also done after the test). */
  close(): Promise<void>;
}

async function openStore(file: string, options: OpenDatabaseOptions = {}): Promise<OpenStore> {
  const db = await openReminderDatabase(`sqlite:${file}`, options);
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= db.destroy();
    return closing;
  };
  cleanups.push(close);
  return { db, store: new DatabaseReminderStore(db), close };
}

const key: ReminderStoreKey = { tenant: '', owner: 'alice', taskId: 'task-1' };

function record(id: string): ReminderWrite {
  return {
    id,
    body: `body of ${id}`,
    dedupeKey: '',
    ttlTurns: 1,
    roleHint: '',
    source: '',
    state: 'PENDING',
    createTimeMs: 1_767_225_600_000,
    turnsSurfaced: 0,
    acceptance: { displacedReminderIds: [], taskState: 'TASK_STATE_WORKING' },
  };
}

/** What an inject commits: a read under the task's lock, then a new record. */
const put = (store: DatabaseReminderStore, id: string) =>
  store.transact(key, async (tx) => {
    if ((await tx.get(id)) === undefined) tx.put(record(id));
    return id;
  });

/** Every record id the store holds for the task, through both reads (snapshot and page). */
async function storedIds(store: DatabaseReminderStore): Promise<string[]> {
  const snapshot = ((await store.read(key))?.reminders ?? []).map((r) => r.id);
  const page = await store.page(key, { afterSeq: 0, limit: 100, liveOnly: false });
  expect(page?.reminders.map((r) => r.id) ?? []).toEqual(snapshot);
  return snapshot;
}

/** Settles `call` or fails the test once HANG_GUARD_MS passed: a bound on a failure only. */
async function bounded<T>(call: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('the call did not settle: a hang')), HANG_GUARD_MS);
  });
  try {
    return await Promise.race([call, hang]);
  } finally {
    clearTimeout(timer);
  }
}

/** The error `call` rejects with, which must be a ReminderError UNAVAILABLE (R69). */
async function unavailable(call: Promise<unknown>): Promise<ReminderError> {
  const error = await bounded(
    call.then(
      () => undefined,
      (e: unknown) => e,
    ),
  );
  expect(error, 'the call failed').toBeInstanceOf(ReminderError);
  const reminderError = error as ReminderError;
  expect({ code: reminderError.code, driver: sqliteCode(reminderError) }).toEqual({
    code: 'UNAVAILABLE',
    driver: expect.stringMatching(/^SQLITE_/),
  });
  return reminderError;
}

/** The SQLite result code in an error's `cause` chain (`SQLITE_BUSY`, …). */
function sqliteCode(error: unknown): string | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 8; depth += 1) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('SQLITE_')) return code;
    e = e.cause;
  }
  return undefined;
}

/** Resolves once another process holds the database's write lock; `release()` commits and ends it. */
async function lockFromAnotherProcess(file: string): Promise<{ release(): Promise<void> }> {
  const lock = await lockSqliteFromAnotherProcess(file, BETTER_SQLITE3);
  cleanups.push(() => lock.kill());
  return {
    async release() {
      const { exitCode, lines } = await lock.release();
      expect(exitCode).toBe(0);
      expect(lines).toEqual(['LOCKED', 'RELEASED']);
    },
  };
}

describe.skipIf(!CAN_MOUNT)('SQLite faults (R69)', () => {
  describe('the file locked by another process past the busy timeout', () => {
    it('fails transactions UNAVAILABLE (SQLITE_BUSY) while reads go on; afterwards it writes again and nothing is lost', async () => {
      const { dir } = freshTmpfs('4m');
      const file = await migratedDatabase(dir);
      const { store } = await openStore(file, { busyTimeoutMs: BUSY_TIMEOUT_MS });
      await put(store, 'before-1');
      await put(store, 'before-2');

      const lock = await lockFromAnotherProcess(file);
      try {
        const error = await unavailable(put(store, 'during'));
        expect(sqliteCode(error)).toBe('SQLITE_BUSY');
        // Each call waits out its own busy timeout, and again fails.
        expect(sqliteCode(await unavailable(put(store, 'during')))).toBe('SQLITE_BUSY');
        // WAL: a reader never waits for the writer, even one in another process.
        expect(await bounded(storedIds(store))).toEqual(['before-1', 'before-2']);
      } finally {
        await lock.release();
      }

      // The same store, the same calls: they succeed now.
      await expect(put(store, 'during')).resolves.toBe('during');
      await put(store, 'after');
      expect(await storedIds(store)).toEqual(['before-1', 'before-2', 'during', 'after']);
    });
  });

  describe('a full file system', () => {
    it('fails writes UNAVAILABLE (SQLITE_FULL) and keeps reading; once space is freed it writes again and nothing is lost', async () => {
      const { dir } = freshTmpfs('1m');
      const file = await migratedDatabase(dir);
      const { store, close } = await openStore(file);
      const acknowledged = ['before-1', 'before-2', 'before-3'];
      for (const id of acknowledged) await put(store, id);

      const filler = fillFileSystem(dir).path;
      try {
        // Each commit appends frames to the WAL, which needs pages the file system no longer has.
        for (const id of ['during-1', 'during-2']) {
          expect(sqliteCode(await unavailable(put(store, id)))).toBe('SQLITE_FULL');
        }
        // Committed records are still read, from both reads.
        expect(await storedIds(store)).toEqual(acknowledged);
      } finally {
        rmSync(filler);
      }

      // The failed transactions were rolled back: none left half-done, the same ids take now.
      for (const id of ['during-1', 'after']) {
        await expect(put(store, id)).resolves.toBe(id);
        acknowledged.push(id);
      }
      expect(await storedIds(store)).toEqual(acknowledged);
      // And from a fresh connection, from the file itself.
      await close();
      const reopened = await openStore(file);
      expect(await storedIds(reopened.store)).toEqual(acknowledged);
    });
  });

  describe('the SDK task store, guarded (R69, R72), on a full file system', () => {
    it('loads while saves fail; a save retried through the fault lands once space is freed, one past its retry window answers UNAVAILABLE', async () => {
      const { dir } = freshTmpfs('1m');
      const file = join(dir, 'reminders.db');
      await migrateSdkTaskTable(`sqlite:${file}`);
      const { db } = await openStore(file);
      /** Failed save attempts, as the SDK's store saw them: the guard's retries made visible. */
      const failedSaves: unknown[] = [];
      const guarded = (saveRetryMs: number) =>
        new GuardedTaskStore({
          db,
          saveRetryMs,
          taskStoreOn: (on) => {
            const inner = new DatabaseTaskStore(on);
            const save = inner.save.bind(inner);
            inner.save = (task, context) =>
              save(task, context).catch((error: unknown) => {
                failedSaves.push(error);
                throw error;
              });
            return inner;
          },
        });
      await guarded(0).save(working('task-1', 'before'), ctx);

      const filler = fillFileSystem(dir).path;
      let retried: Promise<void> | undefined;
      try {
        // Past its retry window (none here): UNAVAILABLE, the driver's error in its cause.
        const refused = await unavailable(guarded(0).save(working('task-1', 'lost'), ctx));
        expect(sqliteCode(refused)).toBe('SQLITE_FULL');
        expect(await savedText(guarded(0))).toBe('before');
        // A save with a long window keeps trying until space comes back.
        failedSaves.length = 0;
        retried = guarded(HANG_GUARD_MS).save(working('task-1', 'retried'), ctx);
        await vi.waitFor(() => expect(failedSaves.length).toBeGreaterThan(0), {
          timeout: HANG_GUARD_MS,
          interval: 10,
        });
      } finally {
        rmSync(filler);
      }
      await bounded(retried);
      expect(sqliteCode(failedSaves[0])).toBe('SQLITE_FULL');
      expect(await savedText(guarded(0))).toBe('retried');
    });
  });

  describe('a read-only file system', () => {
    it('a tmpfs cannot be remounted read-only under a live store: the kernel refuses (EBUSY) while SQLite holds the file open for writing', async () => {
      const tmpfs = freshTmpfs('1m');
      const { dir } = tmpfs;
      const file = await migratedDatabase(dir);
      const { store, close } = await openStore(file);
      await put(store, 'before');
      const refused = spawnSync('mount', ['-o', 'remount,ro', dir], { encoding: 'utf8' });
      expect(refused.status).not.toBe(0);
      expect(refused.stderr).toMatch(/busy/i);
      await put(store, 'still-writable');
      // Once nothing holds it open for writing, the remount goes through.
      await close();
      tmpfs.remount('ro');
      expect(() => writeFileSync(join(dir, 'probe'), 'x')).toThrow(/EROFS/);
      tmpfs.remount('rw');
    });

    it('cannot be opened in WAL mode with no -wal and -shm files: openReminderDatabase rejects with SQLITE_CANTOPEN, a store failure', async () => {
      const tmpfs = freshTmpfs('1m');
      const { dir } = tmpfs;
      const file = await migratedDatabase(dir);
      // Closed cleanly, so its -wal and -shm are gone, and cannot be created now.
      tmpfs.remount('ro');
      const error = await openReminderDatabase(`sqlite:${file}`).then(
        async (db) => {
          await db.destroy();
          return undefined;
        },
        (e: unknown) => e,
      );
      expect(sqliteCode(error)).toBe('SQLITE_CANTOPEN');
      expect(isStoreUnavailable(error)).toBe(true);
      tmpfs.remount('rw');
      const { store } = await openStore(file);
      await expect(put(store, 'after')).resolves.toBe('after');
    });

    it('with the -wal and -shm of a killed writer: reads, answers writes UNAVAILABLE (SQLITE_READONLY), and writes again once reopened read-write', async () => {
      const tmpfs = freshTmpfs('1m');
      const { dir } = tmpfs;
      const file = await migratedDatabase(dir);
      const first = await openStore(file);
      for (const id of ['before-1', 'before-2']) await put(first.store, id);
      await first.close();
      // A writer killed with SIGKILL leaves its -wal (with a commit in it) and -shm behind.
      const killed = spawnSync(process.execPath, [
        '-e',
        `const Database = require(process.argv[1]);
         const db = new Database(process.argv[2]);
         db.exec('create table killed_writer (x); insert into killed_writer values (1)');
         process.kill(process.pid, 'SIGKILL');`,
        BETTER_SQLITE3,
        file,
      ]);
      expect(killed.signal).toBe('SIGKILL');

      tmpfs.remount('ro');
      // SQLite opens the file read-only (the read-write open fails with EROFS).
      const { store, close } = await openStore(file);
      expect(await storedIds(store)).toEqual(['before-1', 'before-2']);
      expect(sqliteCode(await unavailable(put(store, 'during')))).toBe('SQLITE_READONLY');
      expect(await storedIds(store)).toEqual(['before-1', 'before-2']);

      tmpfs.remount('rw');
      // A connection opened read-only stays so: the same store keeps answering
      // UNAVAILABLE (never INTERNAL) until it is reopened.
      expect(sqliteCode(await unavailable(put(store, 'during')))).toBe('SQLITE_READONLY');
      await close();
      const reopened = await openStore(file);
      await expect(put(reopened.store, 'during')).resolves.toBe('during');
      expect(await storedIds(reopened.store)).toEqual(['before-1', 'before-2', 'during']);
    });

    it('remounted read-only by the kernel under a live store (ext4 errors=remount-ro): writes UNAVAILABLE (SQLITE_IOERR), reads go on; after fsck and a new mount nothing is lost', async ({
      skip,
    }) => {
      const ext4 = freshExt4();
      if (typeof ext4 === 'string') return skip(ext4);
      const file = await migratedDatabase(ext4.dir);
      // FULL: each commit is on disk before it is acknowledged. With the
      // default NORMAL, commits the kernel had not written back yet are gone
      // once the file system is mounted again (a lost commit, as after a
      // power loss; see OpenDatabaseOptions.synchronous).
      const { store, close } = await openStore(file, { synchronous: 'FULL' });
      for (const id of ['before-1', 'before-2']) await put(store, id);

      ext4.raiseError('sqlite-faults test');
      expect(ext4.writable()).toBe('EROFS');
      for (const id of ['during-1', 'during-2']) {
        expect(sqliteCode(await unavailable(put(store, id)))).toMatch(/^SQLITE_IOERR/);
      }
      // Reads are answered from what the kernel has cached.
      expect(await storedIds(store)).toEqual(['before-1', 'before-2']);

      // Recovery is an operator's: the store closed, the file system checked and mounted again.
      await close();
      const fsck = ext4.unmountAndCheck();
      // 1: errors were corrected (the aborted journal, the counts), as expected here.
      expect(fsck.status, fsck.stdout).toBeLessThanOrEqual(1);
      ext4.mount();
      expect(ext4.writable()).toBe('writable');
      const reopened = await openStore(file, { synchronous: 'FULL' });
      expect(await storedIds(reopened.store)).toEqual(['before-1', 'before-2']);
      await expect(put(reopened.store, 'during-1')).resolves.toBe('during-1');
      expect(await storedIds(reopened.store)).toEqual(['before-1', 'before-2', 'during-1']);
    });
  });
});

class Caller implements User {
  readonly userName = 'alice';
  get isAuthenticated(): boolean {
    return true;
  }
}

const ctx = new ServerCallContext({
  user: new Caller(),
  tenant: '',
  requestedExtensions: [TASK_REMINDERS_EXTENSION_URI],
  requestedVersion: '1.0',
});

/** A WORKING task whose status message says `text`. */
function working(taskId: string, text: string): Task {
  return TaskCodec.fromJSON({
    id: taskId,
    contextId: `ctx-${taskId}`,
    status: {
      state: 'TASK_STATE_WORKING',
      timestamp: '2026-01-01T00:00:00.000Z',
      message: { messageId: `m-${text}`, role: 'ROLE_AGENT', parts: [{ text }], taskId },
    },
  });
}

/** The text `working()` put in the stored task's status: which save it holds. */
async function savedText(tasks: GuardedTaskStore): Promise<string | undefined> {
  return (await tasks.load('task-1', ctx))?.status?.message?.messageId.replace(/^m-/, '');
}
