import { Task, TaskState } from '@a2a-js/sdk';
import type { User } from '@a2a-js/sdk/server';
import {
  AgentEvent,
  DefaultExecutionEventBusManager,
  RequestContext,
  ServerCallContext,
} from '@a2a-js/sdk/server';
import { DatabaseTaskStore } from '@a2a-js/sdk/server/database';
import type { ReminderService, ReminderStoreKey, StoredReminderState } from '@a2a-reminders/core';
import { createReminderService, TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import { InjectTaskReminderRequestSchema } from '@a2a-reminders/proto';
import { create } from '@bufbuild/protobuf';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseReminderStore } from './database-reminder-store.js';
import { TaskLeaseKeeper } from './lease-keeper.js';
import { TASK_LEASES_TABLE } from './schema.js';
import { migrateSdkTaskTable } from './sdk-migrations.js';
import { TaskLeases } from './task-leases.js';
import type { TestDatabase } from './test-database.js';
import { createTestDatabase } from './test-database.js';

// R53 on a real PostgreSQL: replicas in one process, each with its own
// connections, task store and reminder service, sharing the database. A
// replica "dies" by stopping its heartbeat (its keeper closed, or a lease
// written for a holder that never heartbeats); a surviving replica's keeper
// must end the task FAILED, its reminders first (R27). Verdicts wait on
// conditions with generous deadlines, never on elapsed time.

const REASON = 'The replica running this task stopped; the task ended as FAILED.';

/** A named caller, so tasks and reminders are scoped by a real owner and tenant. */
class Caller implements User {
  constructor(readonly userName: string) {}
  get isAuthenticated(): boolean {
    return true;
  }
}

const ctx = new ServerCallContext({
  user: new Caller('alice'),
  tenant: 'acme',
  requestedExtensions: [TASK_REMINDERS_EXTENSION_URI],
  requestedVersion: '1.0',
});
const keyOf = (taskId: string): ReminderStoreKey => ({ tenant: 'acme', owner: 'alice', taskId });

interface Replica {
  readonly db: Kysely<unknown>;
  readonly taskStore: DatabaseTaskStore;
  readonly store: DatabaseReminderStore;
  readonly service: ReminderService;
  readonly keeper: TaskLeaseKeeper;
  readonly errors: unknown[];
  readonly ended: ReminderStoreKey[];
}

let database: TestDatabase;
const replicas: Replica[] = [];
const finishers: Array<() => void> = [];

async function replica(
  replicaId: string,
  options: { leaseMs?: number; reapIntervalMs?: number; handOverGraceMs?: number } = {},
): Promise<Replica> {
  const db = await database.open({ poolSize: 4 });
  const taskStore = new DatabaseTaskStore(db);
  const store = new DatabaseReminderStore(db);
  const service = createReminderService({
    taskStore,
    eventBusManager: new DefaultExecutionEventBusManager(),
    store,
  });
  const errors: unknown[] = [];
  const ended: ReminderStoreKey[] = [];
  const keeper = new TaskLeaseKeeper({
    db,
    taskStore,
    reminders: service,
    replicaId,
    leaseMs: options.leaseMs ?? 300,
    ...(options.reapIntervalMs === undefined ? {} : { reapIntervalMs: options.reapIntervalMs }),
    ...(options.handOverGraceMs === undefined ? {} : { handOverGraceMs: options.handOverGraceMs }),
    reason: REASON,
    onTaskEnded: (key) => ended.push(key),
    onError: (error) => errors.push(error),
  });
  const r = { db, taskStore, store, service, keeper, errors, ended };
  replicas.push(r);
  return r;
}

beforeAll(async () => {
  database = await createTestDatabase('postgres');
  await migrateSdkTaskTable(database.url);
});

// A test's replicas stop reaping when it ends, and its leases go with it: a
// lease it left (a handed-over one no heartbeat renews, say) would expire
// during a later test, whose reapers would end that task and report it there.
afterEach(async () => {
  for (const finish of finishers.splice(0)) finish();
  for (const r of replicas) await r.keeper.close();
  const db = replicas[0]?.db;
  if (db !== undefined) await sql`delete from ${sql.table(TASK_LEASES_TABLE)}`.execute(db);
});

afterAll(async () => {
  for (const r of replicas) await r.db.destroy();
  await database?.drop();
});

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function working(taskId: string): Task {
  return Task.fromJSON({
    id: taskId,
    contextId: `ctx-${taskId}`,
    status: { state: 'TASK_STATE_WORKING', timestamp: '2026-01-01T00:00:00.000Z' },
  });
}

/**
 * Saves the task WORKING and starts its execution on `r`, through the lease
 * keeper and the reminder service as a worker wraps its executor. The
 * execution takes one turn (so a reminder injected before it is surfaced),
 * then stays open until `finish` is called.
 */
async function runTask(r: Replica, taskId: string) {
  const task = working(taskId);
  await r.taskStore.save(task, ctx);
  const bus = new DefaultExecutionEventBusManager().createOrGetByTaskId(taskId, ctx);
  let finish: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  finishers.push(finish);
  const request = { message: { messageId: 'm', role: 'ROLE_USER', parts: [], taskId } };
  const requestContext = new RequestContext(request as never, taskId, task.contextId, ctx, task);
  const executor = r.keeper.wrapExecutor(
    r.service.wrapExecutor({
      execute: async (rc, b) => {
        b.publish(AgentEvent.task(task));
        await r.service.beginTurn(rc, b);
        started();
        await done;
      },
      cancelTask: async () => {},
    }),
  );
  let started: () => void = () => {};
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  const execution = executor.execute(requestContext, bus);
  await running;
  return { finish, execution };
}

function inject(r: Replica, taskId: string, id: string) {
  return r.service.injectTaskReminder(
    create(InjectTaskReminderRequestSchema, { taskId, reminder: { id, body: id } }),
    ctx,
  );
}

async function stateOf(r: Replica, taskId: string) {
  return (await r.taskStore.load(taskId, ctx))?.status;
}

async function reminderStates(
  r: Replica,
  taskId: string,
): Promise<Record<string, StoredReminderState>> {
  const snapshot = await r.store.read(keyOf(taskId));
  return Object.fromEntries((snapshot?.reminders ?? []).map((m) => [m.id, m.state]));
}

async function leaseHolder(r: Replica, taskId: string): Promise<string | undefined> {
  const { rows } = await sql<{ holder: string }>`select holder from ${sql.table(TASK_LEASES_TABLE)}
    where task_id = ${taskId}`.execute(r.db);
  return rows[0]?.holder;
}

async function leaseExpiry(r: Replica, taskId: string): Promise<number> {
  const { rows } = await sql<{ expires_ms: string }>`select expires_ms
    from ${sql.table(TASK_LEASES_TABLE)} where task_id = ${taskId}`.execute(r.db);
  return Number(rows[0]?.expires_ms);
}

async function dbNowMs(r: Replica): Promise<number> {
  const { rows } = await sql<{ now: string }>`select
    (extract(epoch from clock_timestamp()) * 1000)::bigint as now`.execute(r.db);
  return Number(rows[0]?.now);
}

const statusText = (status: Task['status']) => {
  const part = status?.message?.parts[0]?.content;
  return part?.$case === 'text' ? part.value : undefined;
};

describe('TaskLeaseKeeper', () => {
  it('a surviving replica ends FAILED, reminders first, the task of a replica that stopped heartbeating', async () => {
    const a = await replica('replica-a');
    const b = await replica('replica-b');
    a.keeper.start();
    await a.taskStore.save(working('died'), ctx);
    await inject(a, 'died', 'surfaced');
    const run = await runTask(a, 'died');
    await inject(a, 'died', 'never-surfaced');
    expect(await reminderStates(a, 'died')).toEqual({
      surfaced: 'ACTIVE',
      'never-surfaced': 'PENDING',
    });
    expect(await leaseHolder(a, 'died')).toBe(a.keeper.holder);
    expect(a.keeper.holder).toMatch(/^replica-a#/);

    // Replica A's process "dies": no more heartbeats, its lease left behind.
    await a.keeper.close();
    b.keeper.start();
    await until(
      async () => (await stateOf(b, 'died'))?.state === TaskState.TASK_STATE_FAILED,
      'replica B to end the task',
    );

    const status = await stateOf(b, 'died');
    expect(statusText(status)).toBe(REASON);
    // R27: a reminder that reached a turn EXPIRED, one that never did DROPPED.
    expect(await reminderStates(b, 'died')).toEqual({
      surfaced: 'EXPIRED',
      'never-surfaced': 'DROPPED',
    });
    expect((await b.store.read(keyOf('died')))?.ended?.taskState).toBe('TASK_STATE_FAILED');
    await until(() => b.ended.length > 0, 'onTaskEnded');
    expect(b.ended).toEqual([keyOf('died')]);
    await until(async () => (await leaseHolder(b, 'died')) === undefined, 'the claim released');
    expect(b.errors).toEqual([]);

    // The stale execution returns late: it must not release anyone's lease or report an error.
    run.finish();
    await run.execution;
    expect(a.errors).toEqual([]);
    await b.keeper.close();
  });

  it('a replica restarted under the same id does not renew the leases its dead run left', async () => {
    const first = await replica('replica-same');
    await first.taskStore.save(working('orphan'), ctx);
    await runTask(first, 'orphan');
    // The first run dies holding the lease; a new process starts with the same id.
    await first.keeper.close();
    const restarted = await replica('replica-same');
    expect(restarted.keeper.holder).not.toBe(first.keeper.holder);
    restarted.keeper.start();
    await until(
      async () => (await stateOf(restarted, 'orphan'))?.state === TaskState.TASK_STATE_FAILED,
      "the restarted replica to end its predecessor's task",
    );
    expect(statusText(await stateOf(restarted, 'orphan'))).toBe(REASON);
    await restarted.keeper.close();
  });

  it('a task whose replica keeps heartbeating is not ended, while a dead lease of the same length is', async () => {
    // A generous lease, heartbeats far more often: 40 may be late in a row before it lapses.
    const live = await replica('replica-live', { leaseMs: 2_000, reapIntervalMs: 50 });
    const reaper = await replica('replica-reaper');
    live.keeper.start();
    await live.taskStore.save(working('alive'), ctx);
    await inject(live, 'alive', 'kept');
    const run = await runTask(live, 'alive');

    // A lease written after the live one, as long, by a holder that never heartbeats.
    await reaper.taskStore.save(working('dead-twin'), ctx);
    await new TaskLeases(reaper.db).acquire(keyOf('dead-twin'), 'replica-gone', 2_000);

    // Once the twin is ended, the live lease had run out too, had it not been
    // renewed, and would have been claimed in the same pass or an earlier one.
    await until(async () => {
      await reaper.keeper.reapNow();
      return (await stateOf(reaper, 'dead-twin'))?.state === TaskState.TASK_STATE_FAILED;
    }, 'the dead twin to be ended');
    // The live replica reaps too: let its pass in flight finish before looking.
    await live.keeper.close();

    expect((await stateOf(reaper, 'alive'))?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(await reminderStates(reaper, 'alive')).toEqual({ kept: 'ACTIVE' });
    expect(await leaseHolder(reaper, 'alive')).toBe(live.keeper.holder);
    expect([...live.ended, ...reaper.ended]).toEqual([keyOf('dead-twin')]);
    expect(live.errors).toEqual([]);
    expect(reaper.errors).toEqual([]);

    // The execution ends: its lease is handed to a name no heartbeat renews,
    // so a reaper ends the task if the replica dies before the SDK stores its
    // last status, and drops the lease otherwise.
    run.finish();
    await run.execution;
    expect(await leaseHolder(reaper, 'alive')).toBe(`${live.keeper.holder} (returned)`);
  });

  it("a live replica keeps a returned execution's lease until its last status is stored, then drops it", async () => {
    // A lease far longer than the heartbeat interval: only a live replica is
    // tested here, its status slow but inside R72's grace (the grace's end is
    // lease-fencing.test.ts's).
    const a = await replica('replica-slow-save', {
      leaseMs: 3_000,
      reapIntervalMs: 100,
      handOverGraceMs: 600_000,
    });
    const reaper = await replica('replica-reaper-5', { leaseMs: 3_000, reapIntervalMs: 100 });
    a.keeper.start();
    reaper.keeper.start();
    const run = await runTask(a, 'slow-save');
    run.finish();
    await run.execution;
    // The SDK has not stored the last status yet: the task still reads WORKING.
    // Past the handed-over lease's first expiry, the live replica has renewed it.
    const firstExpiry = await leaseExpiry(reaper, 'slow-save');
    await until(async () => (await dbNowMs(reaper)) > firstExpiry, 'the first expiry to pass');
    await reaper.keeper.reapNow();
    const saved = working('slow-save');
    expect((await stateOf(reaper, 'slow-save'))?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(await leaseHolder(reaper, 'slow-save')).toBe(`${a.keeper.holder} (returned)`);
    // Now the SDK stores COMPLETED: the next heartbeat drops the lease.
    await a.taskStore.save(
      { ...saved, status: { ...saved.status, state: TaskState.TASK_STATE_COMPLETED } } as Task,
      ctx,
    );
    await until(async () => (await leaseHolder(reaper, 'slow-save')) === undefined, 'the drop');
    expect((await stateOf(reaper, 'slow-save'))?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // Both replicas reap: neither ended a task.
    expect([...a.ended, ...reaper.ended]).toEqual([]);
    expect(a.errors).toEqual([]);
  });

  it('a returned execution whose last status never reached the store is ended; a finished one is left', async () => {
    const a = await replica('replica-returning');
    const reaper = await replica('replica-reaper-4');
    const lost = await runTask(a, 'status-lost');
    const done = await runTask(a, 'status-saved');
    lost.finish();
    done.finish();
    await Promise.all([lost.execution, done.execution]);
    // The SDK saved one task's COMPLETED; the replica died before saving the other's.
    const saved = working('status-saved');
    await a.taskStore.save(
      { ...saved, status: { ...saved.status, state: TaskState.TASK_STATE_COMPLETED } } as Task,
      ctx,
    );
    await a.keeper.close();
    await until(async () => {
      await reaper.keeper.reapNow();
      return (await leaseHolder(reaper, 'status-saved')) === undefined;
    }, 'both handed-over leases to be reaped');
    expect((await stateOf(reaper, 'status-lost'))?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect((await stateOf(reaper, 'status-saved'))?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(reaper.ended).toEqual([keyOf('status-lost')]);
  });

  it('reports a lease lost to a reaper, naming the task, and leaves the execution running', async () => {
    const cut = await replica('replica-cut');
    const reaper = await replica('replica-reaper-2');
    // Not started: this replica's heartbeats are run by hand.
    const run = await runTask(cut, 'cut-off');
    await sql`update ${sql.table(TASK_LEASES_TABLE)} set expires_ms = 0
      where task_id = ${'cut-off'}`.execute(cut.db);
    await reaper.keeper.reapNow();
    expect((await stateOf(reaper, 'cut-off'))?.state).toBe(TaskState.TASK_STATE_FAILED);

    await cut.keeper.reapNow();
    expect(cut.errors.map(String)).toEqual([
      expect.stringMatching(
        /task lease lost: replica replica-cut#\w+ .* task cut-off \(tenant "acme", owner "alice"\)/,
      ),
    ]);
    // Reported once, not at every heartbeat.
    await cut.keeper.reapNow();
    expect(cut.errors).toHaveLength(1);

    run.finish();
    await run.execution;
    expect(cut.errors).toHaveLength(1);
  });

  it('a task that cannot be ended is reported and retried later; the others are ended; a finished task is left alone', async () => {
    const reaper = await replica('replica-reaper-3');
    const leases = new TaskLeases(reaper.db);
    await reaper.taskStore.save(working('unreadable'), ctx);
    await reaper.taskStore.save(working('fine'), ctx);
    await reaper.taskStore.save(
      Task.fromJSON({
        id: 'finished',
        contextId: 'ctx',
        status: { state: 'TASK_STATE_COMPLETED' },
      }),
      ctx,
    );
    // A row no reader understands: its stored status is not valid JSON.
    await sql`update tasks set status = ${'{not json'} where id = ${'unreadable'}`.execute(
      reaper.db,
    );
    for (const id of ['unreadable', 'fine', 'finished']) {
      await leases.acquire(keyOf(id), 'replica-gone-3', 60_000);
    }
    await sql`update ${sql.table(TASK_LEASES_TABLE)} set expires_ms = 0
      where holder = ${'replica-gone-3'}`.execute(reaper.db);

    await reaper.keeper.reapNow();
    expect((await stateOf(reaper, 'fine'))?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect((await stateOf(reaper, 'finished'))?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(reaper.ended).toEqual([keyOf('fine')]);
    expect(reaper.errors.map(String)).toEqual([
      expect.stringMatching(/could not end task unreadable, abandoned by replica replica-gone-3/),
    ]);
    // Its claim stays, unrenewed, so a reap retries it once it runs out.
    expect(await leaseHolder(reaper, 'unreadable')).toBe(`${reaper.keeper.holder} (reaping)`);
    expect(await leaseHolder(reaper, 'fine')).toBeUndefined();
    expect(await leaseHolder(reaper, 'finished')).toBeUndefined();
    await sql`update ${sql.table(TASK_LEASES_TABLE)} set expires_ms = 0
      where task_id = ${'unreadable'}`.execute(reaper.db);
    await reaper.keeper.reapNow();
    expect(reaper.errors).toHaveLength(2);
  });

  it('refuses a heartbeat no more frequent than the lease', async () => {
    const db = await database.open({ poolSize: 1 });
    try {
      const options = {
        db,
        taskStore: new DatabaseTaskStore(db),
        reminders: { endTask: async () => {} },
        replicaId: 'r',
        reason: REASON,
      };
      expect(() => new TaskLeaseKeeper({ ...options, leaseMs: 300, reapIntervalMs: 300 })).toThrow(
        RangeError,
      );
      expect(() => new TaskLeaseKeeper({ ...options, leaseMs: 0 })).toThrow(RangeError);
    } finally {
      await db.destroy();
    }
  });
});
