import { TaskState } from '@a2a-js/sdk';
import type { ExecutionEventBus } from '@a2a-js/sdk/server';
import {
  AgentEvent,
  DefaultExecutionEventBusManager,
  InMemoryTaskStore,
  resolveUserScope,
} from '@a2a-js/sdk/server';
import type { ReminderService } from '@a2a-reminders/core';
import { createReminderService, reminderEventsOf } from '@a2a-reminders/core';
import type { TaskReminderEvent } from '@a2a-reminders/proto';
import {
  InjectTaskReminderRequestSchema,
  TaskReminderEventBatchSchema,
} from '@a2a-reminders/proto';
import { activatedContext, workingTask } from '@a2a-reminders/test-support';
import { create, fromBinary } from '@bufbuild/protobuf';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseReminderStore } from './database-reminder-store.js';
import { PostgresChangeSignal } from './postgres-change-signal.js';
import type { TestDatabase } from './test-database.js';
import { createTestDatabase } from './test-database.js';

// R52, R54 in one process: two reminder services, each with its own
// connections, bus manager and LISTEN connection, sharing one PostgreSQL
// database (as two replicas do). Replica A runs the task's execution;
// events committed by either must reach A's bus exactly once, in the order
// the log holds them, also across a lost LISTEN connection.

const ctx = activatedContext();

interface Replica {
  readonly service: ReminderService;
  readonly store: DatabaseReminderStore;
  readonly signal: PostgresChangeSignal;
  readonly db: Kysely<unknown>;
}

let database: TestDatabase;
const replicas: Replica[] = [];
const taskStore = new InMemoryTaskStore();

/** What the LISTEN connections reported (the R54 test cuts them on purpose). */
const reported: unknown[] = [];

async function replica(checkMs?: number): Promise<Replica> {
  const db = await database.open({ poolSize: 4 });
  const store = new DatabaseReminderStore(db);
  const signal = await PostgresChangeSignal.start(database.url, {
    reconnectMs: 50,
    ...(checkMs === undefined ? {} : { checkMs }),
    onError: (error) => reported.push(error),
  });
  const service = createReminderService({
    taskStore,
    eventBusManager: new DefaultExecutionEventBusManager(),
    store,
    changeSignal: signal,
  });
  const r = { service, store, signal, db };
  replicas.push(r);
  return r;
}

beforeAll(async () => {
  database = await createTestDatabase('postgres');
});

afterAll(async () => {
  for (const r of replicas) {
    await r.signal.close();
    await r.db.destroy();
  }
  await database?.drop();
});

/**
 * A WORKING task saved in the shared task store, an SDK bus for it whose
 * events are recorded, and the request context of its execution.
 */
async function savedTask(taskId: string) {
  const eventBusManager = new DefaultExecutionEventBusManager();
  const { task, bus, events, requestContext } = await workingTask({
    taskStore,
    eventBusManager,
    taskId,
    context: ctx,
  });
  return { task, bus, seen: events, requestContext };
}

/** Starts an execution of `taskId` on `r` that stays open until `finish` is called. */
async function runTask(r: Replica, taskId: string) {
  const { task, bus, seen, requestContext } = await savedTask(taskId);
  let finish: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  let eventBus: ExecutionEventBus | undefined;
  const started = new Promise<void>((resolve) => {
    const wrapped = r.service.wrapExecutor({
      execute: async (_rc, b) => {
        eventBus = b;
        b.publish(AgentEvent.task(task));
        resolve();
        await done;
      },
      cancelTask: async () => {},
    });
    void wrapped.execute(requestContext, bus);
  });
  await started;
  return {
    seen,
    finish,
    turn: () => r.service.beginTurn(requestContext, eventBus as ExecutionEventBus),
    delivered: () => seen.flatMap((e) => reminderEventsOf(e)),
  };
}

function inject(r: Replica, taskId: string, id: string, dedupeKey = '') {
  return r.service.injectTaskReminder(
    create(InjectTaskReminderRequestSchema, { taskId, reminder: { id, body: id, dedupeKey } }),
    ctx,
  );
}

async function logged(r: Replica, taskId: string) {
  const key = { tenant: '', owner: resolveUserScope(ctx), taskId };
  const batches = await r.store.eventLog.after(key, 0, 10_000);
  return batches.flatMap((b) => fromBinary(TaskReminderEventBatchSchema, b.batch).events);
}

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const describeEvent = (e: TaskReminderEvent) => `${e.event.case}:${e.reminderId}`;

describe('replicas on one PostgreSQL database', () => {
  it('R52: events committed on either replica reach the running replica once each, in log order', async () => {
    const a = await replica();
    const b = await replica();
    const run = await runTask(a, 'r52');
    // Interleaved writers: B injects (displacing on one key), A injects and takes turns.
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < 30; i += 1) {
      writes.push(inject(b, 'r52', `b${i}`, i % 3 === 0 ? 'k' : ''));
      if (i % 5 === 0) writes.push(inject(a, 'r52', `a${i}`, 'k'));
      if (i % 7 === 0) writes.push(run.turn());
    }
    await Promise.all(writes);
    const expected = (await logged(a, 'r52')).map(describeEvent);
    expect(expected.length).toBeGreaterThan(10);
    await until(() => run.delivered().length >= expected.length, 'every logged event on A');
    expect(run.delivered().map(describeEvent)).toEqual(expected);
    run.finish();
  });

  it('R54: events committed while the LISTEN connection is down are delivered after it comes back', async () => {
    const a = await replica();
    const b = await replica();
    const run = await runTask(a, 'r54');
    await inject(b, 'r54', 'before', 'k');
    // Cut A's LISTEN connection from the server side; it reconnects on its own.
    await sql`select pg_terminate_backend(pid) from pg_stat_activity
      where datname = current_database() and query = 'LISTEN a2a_reminders_events'
      and pid <> pg_backend_pid()`.execute(a.db);
    await until(() => !a.signal.listening, 'A to notice the lost connection');
    expect(String(reported.at(-1))).toMatch(/terminat/);
    await inject(b, 'r54', 'while-down', 'k');
    await until(() => a.signal.listening, 'A to listen again');
    const expected = (await logged(a, 'r54')).map(describeEvent);
    expect(expected).toEqual(['displaced:before']);
    await until(() => run.delivered().length >= 1, 'the event committed while A was deaf');
    expect(run.delivered().map(describeEvent)).toEqual(expected);
    run.finish();
  });

  it('R52, R30: fates committed elsewhere while the task waits in INPUT_REQUIRED reach its stream when it resumes', async () => {
    const a = await replica();
    const b = await replica();
    const taskId = 'waiting';
    // The SDK keeps the bus of a task left INPUT_REQUIRED for the follow-up send.
    const { task, bus, seen, requestContext } = await savedTask(taskId);
    const status = (state: TaskState) => ({
      taskId,
      contextId: task.contextId,
      status: { state, message: undefined, timestamp: '2026-01-01T00:00:01.000Z' },
      metadata: undefined,
    });
    let phase = 0;
    const wrapped = a.service.wrapExecutor({
      execute: async (_rc, eventBus) => {
        phase += 1;
        if (phase === 1) {
          eventBus.publish(AgentEvent.task(task));
          eventBus.publish(AgentEvent.statusUpdate(status(TaskState.TASK_STATE_INPUT_REQUIRED)));
        } else {
          eventBus.publish(AgentEvent.statusUpdate(status(TaskState.TASK_STATE_WORKING)));
        }
      },
      cancelTask: async () => {},
    });
    await wrapped.execute(requestContext, bus);
    await inject(a, taskId, 'on-a', 'k');
    await inject(b, taskId, 'on-b', 'k');
    // Both fates are committed; the one from B goes through the log while A's execution is over.
    await until(async () => (await logged(a, taskId)).length === 1, 'the displacement in the log');
    await wrapped.execute(requestContext, bus);
    await until(() => seen.flatMap((e) => reminderEventsOf(e)).length >= 1, 'the held fate');
    expect(seen.flatMap((e) => reminderEventsOf(e)).map(describeEvent)).toEqual(
      (await logged(a, taskId)).map(describeEvent),
    );
  });

  it('R54: a LISTEN connection that stops answering (half-open) is replaced, and the follower catches up', async () => {
    const a = await replica(200);
    const b = await replica();
    const run = await runTask(a, 'r54-stalled');
    await inject(b, 'r54-stalled', 'first', 'k');
    const stalled = a.signal.backendPid;
    if (stalled === undefined) throw new Error('A is not listening');
    const before = reported.length;
    // The server side of A's connection stops answering, with no error on its socket.
    process.kill(stalled, 'SIGSTOP');
    try {
      // Committed while A is deaf: only a catch-up after A reconnects can bring it.
      await inject(b, 'r54-stalled', 'second', 'k');
      await until(() => a.signal.listening && a.signal.backendPid !== stalled, 'A to reconnect');
      expect(reported.slice(before).map(String)).toContainEqual(
        expect.stringMatching(/did not answer/),
      );
      const expected = (await logged(a, 'r54-stalled')).map(describeEvent);
      expect(expected).toEqual(['displaced:first']);
      // Delivered while the stalled backend still cannot deliver anything.
      await until(() => run.delivered().length >= 1, 'the displacement on A');
      expect(run.delivered().map(describeEvent)).toEqual(expected);
    } finally {
      process.kill(stalled, 'SIGCONT');
      await sql`select pg_terminate_backend(${stalled})`.execute(b.db);
    }
    run.finish();
  });
});
