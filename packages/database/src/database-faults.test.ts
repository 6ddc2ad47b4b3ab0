import { Task, TaskState } from '@a2a-js/sdk';
import { ServerCallContext } from '@a2a-js/sdk/server';
import { DatabaseTaskStore } from '@a2a-js/sdk/server/database';
import type { ReminderStoreKey } from '@a2a-reminders/core';
import { ReminderError } from '@a2a-reminders/core';
import type { PostgresCluster, TcpProxy } from '@a2a-reminders/test-support';
import { startPostgresCluster, startTcpProxy } from '@a2a-reminders/test-support';
import type { Kysely } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openReminderDatabase } from './connect.js';
import { DatabaseReminderStore } from './database-reminder-store.js';
import { GuardedTaskStore } from './guarded-task-store.js';
import { migrateReminderStore } from './migrations.js';
import { migrateSdkTaskTable } from './sdk-migrations.js';

// R69, R70 with real faults on a PostgreSQL cluster of this file's own
// (restarted, its backends ended) behind a loopback proxy (connections cut
// or black-holed). A fault must fail the call in flight with UNAVAILABLE,
// never end the process (vitest fails a file on an unhandled error), and
// the store must serve again once the database is back. Deadlines here only
// bound a failure; nothing waits on elapsed time.

const APP = 'a2a-reminders fault test';
let cluster: PostgresCluster;
let proxy: TcpProxy;
let url: string;
const opened: Kysely<unknown>[] = [];

beforeAll(async () => {
  cluster = await startPostgresCluster();
  await cluster.createDatabase('faults');
  proxy = await startTcpProxy({ targetPort: cluster.port });
  url = proxy.url('faults', 'postgres');
  const db = await openReminderDatabase(url);
  await migrateReminderStore(db);
  await db.destroy();
  await migrateSdkTaskTable(cluster.url('faults'));
}, 120_000);

afterAll(async () => {
  await Promise.allSettled(opened.map((db) => db.destroy()));
  await proxy?.close();
  await cluster?.destroy();
});

afterEach(() => proxy.heal());

async function open(statementTimeoutMs = 10_000): Promise<DatabaseReminderStore> {
  const db = await openReminderDatabase(url, {
    applicationName: APP,
    statementTimeoutMs,
    onIdleConnectionError: () => {},
  });
  opened.push(db);
  return new DatabaseReminderStore(db);
}

let serial = 0;
function key(): ReminderStoreKey {
  serial += 1;
  return { tenant: '', owner: 'o', taskId: `t${serial}` };
}

/** A transaction that advances the turn: a read and a write under the task's row lock. */
const turn = (store: DatabaseReminderStore, k: ReminderStoreKey) =>
  store.transact(k, async (tx) => {
    await tx.live();
    const next = tx.turn + 1;
    tx.setTurn(next);
    return next;
  });

/**
 * A transaction held open between two statements until `release()`; `inside`
 * resolves once its first statement ran.
 */
function heldOpen(store: DatabaseReminderStore, k: ReminderStoreKey) {
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let entered = () => {};
  const inside = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const call = store.transact(k, async (tx) => {
    await tx.live();
    entered();
    await held;
    await tx.live();
    const next = tx.turn + 1;
    tx.setTurn(next);
    return next;
  });
  return { call, inside, release };
}

async function failure(call: Promise<unknown>): Promise<ReminderError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ReminderError);
  return error as ReminderError;
}

describe('a backend ended mid-transaction (pg_terminate_backend)', () => {
  it('keeps the process; the transaction, ended before its commit, is run again once on a new connection', async () => {
    const store = await open();
    const k = key();
    await turn(store, k);
    const { call, inside, release } = heldOpen(store, k);
    await inside;
    expect(await cluster.terminateBackends({ applicationName: APP })).toBeGreaterThan(0);
    release();
    // R69: nothing of it committed, so the store ran it again, and once only.
    expect(await call).toBe(2);
    expect((await store.read(k))?.turn).toBe(2);
    await expect(turn(store, k)).resolves.toBe(3);
  });
});

describe.each(['fast', 'immediate'] as const)('a restart (%s)', (mode) => {
  it('answers UNAVAILABLE while the server is down and serves again after', async () => {
    const store = await open();
    const k = key();
    await turn(store, k);
    await cluster.stop(mode);
    try {
      expect((await failure(turn(store, k))).code).toBe('UNAVAILABLE');
      expect((await failure(store.read(k))).code).toBe('UNAVAILABLE');
    } finally {
      await cluster.start();
    }
    await expect(turn(store, k)).resolves.toBeDefined();
    expect((await store.read(k))?.turn).toBeGreaterThan(0);
  });
});

describe('a half-open connection (black-holed by the proxy)', () => {
  it('fails the call within its deadline with UNAVAILABLE; after healing a fresh connection serves', async () => {
    const store = await open(300);
    const k = key();
    await turn(store, k);
    expect(proxy.blackHole({ applicationName: APP })).toBeGreaterThan(0);
    // The statement deadline (R70), not TCP, ends the wait: no hang.
    expect((await failure(turn(store, k))).code).toBe('UNAVAILABLE');
    proxy.heal();
    await expect(turn(store, k)).resolves.toBeDefined();
  });

  it('lets the server end a transaction whose client went silent, freeing the task row lock', async () => {
    const store = await open(300);
    const other = await open(300);
    const k = key();
    await turn(store, k);
    const { call: stuck, inside, release } = heldOpen(store, k);
    await inside;
    proxy.blackHole({ applicationName: APP });
    release();
    expect((await failure(stuck)).code).toBe('UNAVAILABLE');
    proxy.heal();
    // Another process's transaction on the same task gets the row lock once
    // the server ended the silent one (idle_in_transaction_session_timeout).
    await expect(turn(other, k)).resolves.toBeDefined();
  });
});

describe('a connection cut by the network (reset)', () => {
  it('runs the transaction it cut before its commit again, once, on a new connection', async () => {
    const store = await open();
    const k = key();
    await turn(store, k);
    const { call, inside, release } = heldOpen(store, k);
    await inside;
    expect(proxy.cut({ applicationName: APP })).toBeGreaterThan(0);
    release();
    expect(await call).toBe(2);
    expect((await store.read(k))?.turn).toBe(2);
  });
});

describe("the SDK's task store through a restart (GuardedTaskStore)", () => {
  it('waits out the restart on a load and a save instead of failing them (R72)', async () => {
    const db = await openReminderDatabase(url, {
      applicationName: APP,
      onIdleConnectionError: () => {},
    });
    opened.push(db);
    const tasks = new GuardedTaskStore({ db, taskStoreOn: (on) => new DatabaseTaskStore(on) });
    const context = new ServerCallContext({ tenant: '', requestedVersion: '1.0' });
    const task = (state: string) =>
      Task.fromJSON({
        id: 'guarded',
        contextId: 'c',
        status: { state, timestamp: '2026-01-01T00:00:00Z' },
      });
    await tasks.save(task('TASK_STATE_WORKING'), context);
    await cluster.stop('fast');
    // The SDK loads a task before it stores each event: a failed load would stop that for good.
    const loading = tasks.load('guarded', context);
    const saving = tasks.save(task('TASK_STATE_COMPLETED'), context);
    await cluster.start();
    expect((await loading)?.id).toBe('guarded');
    await saving;
    expect((await tasks.load('guarded', context))?.status?.state).toBe(
      TaskState.TASK_STATE_COMPLETED,
    );
  });
});
