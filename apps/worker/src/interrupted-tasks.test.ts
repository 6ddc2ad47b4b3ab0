import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Task, TaskState } from '@a2a-js/sdk';
import { ServerCallContext, UnauthenticatedUser } from '@a2a-js/sdk/server';
import { sql } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { endInterruptedTasks } from './interrupted-tasks.js';
import type { WorkerStores } from './worker-stores.js';
import { openWorkerStores } from './worker-stores.js';

const dirs: string[] = [];
const opened: WorkerStores[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function sqliteStores(): Promise<WorkerStores> {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-reminders-interrupted-'));
  dirs.push(dir);
  const stores = await openWorkerStores(`sqlite:${join(dir, 'worker.sqlite')}`);
  opened.push(stores);
  return stores;
}

const anonymous = () =>
  new ServerCallContext({ user: new UnauthenticatedUser(), requestedVersion: '1.0' });

function working(id: string): Task {
  return Task.fromJSON({ id, contextId: `ctx-${id}`, status: { state: 'TASK_STATE_WORKING' } });
}

describe('endInterruptedTasks', () => {
  it('ends every task it can, and a row it cannot read does not stop the others (or the worker)', async () => {
    const stores = await sqliteStores();
    const db = stores.db;
    if (db === undefined) throw new Error('a SQLite store has a database');
    await stores.taskStore.save(working('a'), anonymous());
    await stores.taskStore.save(working('broken'), anonymous());
    await stores.taskStore.save(working('c'), anonymous());
    // A row no reader understands: its stored status is not valid JSON.
    await sql`update tasks set status = ${'{not json'} where id = ${'broken'}`.execute(db);

    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const reminders = { endTask: vi.fn(async () => {}) };
    let ended: number;
    let logged: unknown[][];
    try {
      ended = await endInterruptedTasks({ db, taskStore: stores.taskStore, reminders });
      logged = errors.mock.calls.map((call) => [...call]);
    } finally {
      errors.mockRestore();
    }
    expect(ended).toBe(2);
    expect(logged.map((call) => call[0])).toEqual([
      'task reminders: could not end interrupted task broken',
    ]);
    for (const id of ['a', 'c']) {
      const task = await stores.taskStore.load(id, anonymous());
      expect(task?.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    }
  });
});
