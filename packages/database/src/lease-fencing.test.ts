import type { Task } from '@a2a-js/sdk';
import { Task as TaskCodec, TaskState } from '@a2a-js/sdk';
import type { ExecutionEventBus, User } from '@a2a-js/sdk/server';
import {
  AgentEvent,
  DefaultExecutionEventBusManager,
  RequestContext,
  ServerCallContext,
} from '@a2a-js/sdk/server';
import { DatabaseTaskStore } from '@a2a-js/sdk/server/database';
import type { ReminderStoreKey } from '@a2a-reminders/core';
import { createReminderService, TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import type { PostgresCluster, TcpProxy } from '@a2a-reminders/test-support';
import { startPostgresCluster, startTcpProxy } from '@a2a-reminders/test-support';
import type { Kysely } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openReminderDatabase } from './connect.js';
import { DatabaseReminderStore } from './database-reminder-store.js';
import { GuardedTaskStore, LeaseLostError } from './guarded-task-store.js';
import { TaskLeaseKeeper, UNSAVED_REASON } from './lease-keeper.js';
import { migrateReminderStore } from './migrations.js';
import { migrateSdkTaskTable } from './sdk-migrations.js';
import { TaskLeases } from './task-leases.js';

// R71, R72 on a PostgreSQL cluster of this file's own. Replica A's lease
// connections go through a loopback proxy that black-holes them (a
// half-open connection: no error, no answer), as a partition or a failover
// does; replica B reaches the database directly. Verdicts are orders of
// events and stored states, never elapsed times.

const REASON = 'The replica running this task stopped; the task ended as FAILED.';

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

let cluster: PostgresCluster;
let proxy: TcpProxy;
let direct: string;
const opened: Kysely<unknown>[] = [];
const keepers: TaskLeaseKeeper[] = [];
const finishers: Array<() => void> = [];

beforeAll(async () => {
  cluster = await startPostgresCluster();
  direct = await cluster.createDatabase('fencing');
  proxy = await startTcpProxy({ targetPort: cluster.port });
  await migrateSdkTaskTable(direct);
  const db = await openReminderDatabase(direct);
  await migrateReminderStore(db);
  await db.destroy();
}, 120_000);

afterEach(async () => {
  proxy.heal();
  for (const finish of finishers.splice(0)) finish();
  for (const keeper of keepers.splice(0)) await keeper.close();
});

afterAll(async () => {
  await Promise.allSettled(opened.map((db) => db.destroy()));
  await proxy?.close();
  await cluster?.destroy();
});

async function open(url: string, applicationName: string, statementTimeoutMs = 10_000) {
  const db = await openReminderDatabase(url, {
    applicationName,
    statementTimeoutMs,
    onIdleConnectionError: () => {},
  });
  opened.push(db);
  return db;
}

interface Replica {
  readonly name: string;
  readonly keeper: TaskLeaseKeeper;
  readonly tasks: GuardedTaskStore;
  readonly service: ReturnType<typeof createReminderService>;
  readonly log: string[];
}

/**
 * A replica: its own connections, guarded task store fenced by its keeper
 * (R71), reminder service and keeper. `viaProxy` routes its lease
 * connections through the proxy, under the application name `lease <name>`.
 */
async function replica(
  name: string,
  log: string[],
  options: {
    viaProxy?: boolean;
    leaseMs?: number;
    handOverGraceMs?: number;
    saves?: (db: Kysely<unknown>) => DatabaseTaskStore;
  } = {},
): Promise<Replica> {
  const db = await open(direct, `main ${name}`);
  const leaseDb = options.viaProxy
    ? await open(proxy.url('fencing', 'postgres'), `lease ${name}`, 100)
    : await open(direct, `lease ${name}`);
  const tasks = new GuardedTaskStore({
    db,
    taskStoreOn: options.saves ?? ((on) => new DatabaseTaskStore(on)),
    saveRetryMs: 300,
  });
  const service = createReminderService({
    taskStore: tasks,
    eventBusManager: new DefaultExecutionEventBusManager(),
    store: new DatabaseReminderStore(db),
  });
  const keeper = new TaskLeaseKeeper({
    db: leaseDb,
    taskStore: new DatabaseTaskStore(db),
    reminders: service,
    replicaId: name,
    leaseMs: options.leaseMs ?? 2000,
    ...(options.handOverGraceMs === undefined ? {} : { handOverGraceMs: options.handOverGraceMs }),
    reason: REASON,
    onLeaseLost: (key) => log.push(`${name} lost ${key.taskId}`),
    onTaskEnded: (key) => log.push(`${name} ended ${key.taskId}`),
    onError: (e) => log.push(`${name} error ${String(e)}`),
  });
  tasks.fenceWith(keeper);
  keepers.push(keeper);
  return { name, keeper, tasks, service, log };
}

let serial = 0;
function newTaskId(): string {
  serial += 1;
  return `task-${serial}`;
}

const keyOf = (taskId: string): ReminderStoreKey => ({ tenant: 'acme', owner: 'alice', taskId });

function working(taskId: string, text = 'working'): Task {
  return TaskCodec.fromJSON({
    id: taskId,
    contextId: `ctx-${taskId}`,
    status: {
      state: 'TASK_STATE_WORKING',
      timestamp: '2026-01-01T00:00:00.000Z',
      message: {
        messageId: `m-${text}`,
        role: 'ROLE_AGENT',
        parts: [{ text }],
        taskId,
        contextId: `ctx-${taskId}`,
      },
    },
  });
}

/**
 * Starts an execution of the task on `r` through its keeper, as a worker
 * wraps its executor; it runs until `finish()`. `published` records what
 * reached the task's bus; `bus()` is what the execution publishes on.
 */
async function execute(r: Replica, taskId: string) {
  const task = working(taskId);
  await r.tasks.save(task, ctx);
  const bus = new DefaultExecutionEventBusManager().createOrGetByTaskId(taskId, ctx);
  const published: unknown[] = [];
  bus.on('event', (event) => published.push(event));
  let finish: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  finishers.push(finish);
  let inner: ExecutionEventBus | undefined;
  let started: () => void = () => {};
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  const request = { message: { messageId: 'm', role: 'ROLE_USER', parts: [], taskId } };
  const requestContext = new RequestContext(request as never, taskId, task.contextId, ctx, task);
  const execution = r.keeper
    .wrapExecutor({
      execute: async (_rc, b) => {
        inner = b;
        b.publish(AgentEvent.task(task));
        started();
        await done;
      },
      cancelTask: async () => {},
    })
    .execute(requestContext, bus);
  await running;
  return {
    finish,
    execution,
    published,
    bus: () => inner as ExecutionEventBus,
  };
}

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const stateText = (task: Task | undefined) =>
  task?.status?.message?.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : ''));

describe('R71: a replica cut off from its leases', () => {
  it('stops owning the task before the lease expires; the other replica ends it and its FAILED stays', async () => {
    const log: string[] = [];
    const a = await replica('A', log, { viaProxy: true });
    const b = await replica('B', log);
    const taskId = newTaskId();
    const run = await execute(a, taskId);
    a.keeper.start();
    b.keeper.start();
    // A's heartbeats get through once, then its lease connections go silent.
    await a.keeper.reapNow();
    expect(proxy.blackHole({ applicationName: 'lease A' })).toBeGreaterThan(0);

    await until(() => log.includes(`B ended ${taskId}`), 'B to end the task');
    // A gave the task up before B could take it (R71 before R53).
    expect(log.indexOf(`A lost ${taskId}`)).toBeGreaterThanOrEqual(0);
    expect(log.indexOf(`A lost ${taskId}`)).toBeLessThan(log.indexOf(`B ended ${taskId}`));
    expect(a.keeper.standing(keyOf(taskId))).toBe('lost');

    // A's execution goes on a moment: nothing it publishes goes out, nothing it saves is stored.
    const before = run.published.length;
    run.bus().publish(AgentEvent.task(working(taskId, 'late')));
    expect(run.published.length).toBe(before);
    await expect(a.tasks.save(working(taskId, 'late'), ctx)).rejects.toBeInstanceOf(LeaseLostError);
    const stored = await b.tasks.load(taskId, ctx);
    expect(stored?.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(stateText(stored)).toEqual([REASON]);
    run.finish();
    await run.execution;
  });

  it('never renews a lease it gave up, once its connections are back: the task is ended, not left WORKING', async () => {
    const log: string[] = [];
    // A alone: nobody else can reap while A is cut off.
    const a = await replica('A', log, { viaProxy: true, leaseMs: 4000 });
    const taskId = newTaskId();
    const run = await execute(a, taskId);
    a.keeper.start();
    await a.keeper.reapNow();
    expect(proxy.blackHole({ applicationName: 'lease A' })).toBeGreaterThan(0);
    await until(() => log.includes(`A lost ${taskId}`), 'A to give the task up');
    // Back before the lease ran out on the database: the next heartbeat
    // must give the row up, not renew it.
    proxy.heal();
    await a.keeper.reapNow();
    await until(() => log.includes(`A ended ${taskId}`), 'A to end the task it gave up');
    const stored = await a.tasks.load(taskId, ctx);
    expect(stored?.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    run.finish();
    await run.execution;
  });

  it('refuses, under the lease row lock, a save of a task whose lease another replica took', async () => {
    const log: string[] = [];
    const a = await replica('A', log);
    const b = await replica('B', log);
    const taskId = newTaskId();
    const run = await execute(a, taskId);
    await a.tasks.save(working(taskId, 'step 1'), ctx);
    // A still believes it runs the task: only the database knows otherwise.
    expect(a.keeper.standing(keyOf(taskId))).toBe('running');
    await new TaskLeases(await open(direct, 'takeover')).acquire(keyOf(taskId), 'B#other', 10_000);

    await expect(a.tasks.save(working(taskId, 'step 2'), ctx)).rejects.toBeInstanceOf(
      LeaseLostError,
    );
    expect(stateText(await b.tasks.load(taskId, ctx))).toEqual(['step 1']);
    expect(log.filter((l) => !l.includes(' error '))).toEqual([`A lost ${taskId}`]);
    run.finish();
    await run.execution;
  });
});

describe('R72: an execution whose last status cannot be stored', () => {
  it('has its task ended FAILED with the unsaved reason once the hand-over grace runs out', async () => {
    const log: string[] = [];
    let failSaves = false;
    const a = await replica('A', log, {
      leaseMs: 1000,
      handOverGraceMs: 500,
      // Saves fail as a lost connection does once the execution returned.
      saves: (db) => {
        const store = new DatabaseTaskStore(db);
        const save = store.save.bind(store);
        store.save = async (task, context) => {
          if (failSaves) throw new Error('Connection terminated unexpectedly');
          return save(task, context);
        };
        return store;
      },
    });
    const b = await replica('B', log);
    const taskId = newTaskId();
    const run = await execute(a, taskId);
    a.keeper.start();
    b.keeper.start();
    failSaves = true;
    run.finish();
    await run.execution;
    // The SDK's save of the last status would fail here (after its retries, R69).
    await expect(a.tasks.save(working(taskId, 'done'), ctx)).rejects.toMatchObject({
      code: 'UNAVAILABLE',
    });
    expect((await b.tasks.load(taskId, ctx))?.status?.state).toBe(TaskState.TASK_STATE_WORKING);

    // Whichever replica reaps first ends it (A's own reaper may).
    await until(() => log.some((l) => l.endsWith(`ended ${taskId}`)), 'a reaper to end the task');
    const stored = await b.tasks.load(taskId, ctx);
    expect(stored?.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(stateText(stored)).toEqual([UNSAVED_REASON]);
    // A late retry of A's save cannot bring it back.
    failSaves = false;
    await expect(a.tasks.save(working(taskId, 'done'), ctx)).rejects.toBeInstanceOf(LeaseLostError);
  });
});
