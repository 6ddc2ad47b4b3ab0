import { ListTasksRequest, Task } from '@a2a-js/sdk';
import { InMemoryTaskStore, ServerCallContext, UnauthenticatedUser } from '@a2a-js/sdk/server';
import { describe, expect, it } from 'vitest';
import { BatchFreeTaskStore } from './batch-free-task-store.js';
import { TASK_REMINDERS_EXTENSION_URI } from './extension-uri.js';

// R66: no reminder batch is stored with a task, whatever the A2A server hands the store.

const context = new ServerCallContext({ user: new UnauthenticatedUser(), requestedVersion: '1.0' });
const batch = { taskId: 't1', events: [{ reminderId: 'a', displaced: { displacedBy: 'b' } }] };

function task(id: string, metadata: Record<string, unknown> | undefined): Task {
  const t = Task.fromJSON({
    id,
    contextId: `ctx-${id}`,
    status: { state: 'TASK_STATE_WORKING', timestamp: '2026-01-01T00:00:00.000Z' },
  });
  return { ...t, metadata };
}

describe('R66: BatchFreeTaskStore', () => {
  it('saves a task without its batch, keeping the rest of its metadata and the caller’s object', async () => {
    const inner = new InMemoryTaskStore();
    const store = new BatchFreeTaskStore(inner);
    const saved = task('t1', { [TASK_REMINDERS_EXTENSION_URI]: batch, 'x-agent': { step: 3 } });
    await store.save(saved, context);
    expect((await inner.load('t1', context))?.metadata).toEqual({ 'x-agent': { step: 3 } });
    // The A2A server's own object is not changed under it.
    expect(saved.metadata?.[TASK_REMINDERS_EXTENSION_URI]).toEqual(batch);
  });

  it('drops metadata that held only the batch, as the task had none before it', async () => {
    const inner = new InMemoryTaskStore();
    const store = new BatchFreeTaskStore(inner);
    await store.save(task('t1', { [TASK_REMINDERS_EXTENSION_URI]: batch }), context);
    expect((await inner.load('t1', context))?.metadata).toBeUndefined();
  });

  it('gives a task back the metadata it had before the A2A server merged a batch into it', async () => {
    const inner = new InMemoryTaskStore();
    const store = new BatchFreeTaskStore(inner);
    await store.save(task('empty', {}), context);
    await store.save(task('none', undefined), context);
    for (const id of ['empty', 'none']) {
      // As the SDK's ResultManager applies a status update: load, merge, save that object.
      const loaded = await store.load(id, context);
      if (loaded === undefined) throw new Error(`${id} not stored`);
      loaded.metadata = { ...loaded.metadata, [TASK_REMINDERS_EXTENSION_URI]: batch };
      await store.save(loaded, context);
    }
    expect((await inner.load('empty', context))?.metadata).toEqual({});
    expect((await inner.load('none', context))?.metadata).toBeUndefined();
  });

  it('passes a task without a batch through as it is', async () => {
    const inner = new InMemoryTaskStore();
    const store = new BatchFreeTaskStore(inner);
    await store.save(task('t1', { other: 1 }), context);
    await store.save(task('t2', undefined), context);
    expect((await store.load('t1', context))?.metadata).toEqual({ other: 1 });
    expect((await store.load('t2', context))?.metadata).toBeUndefined();
    expect(await store.load('missing', context)).toBeUndefined();
  });

  it('loads and lists a task stored with a batch before the store was wrapped without it', async () => {
    const inner = new InMemoryTaskStore();
    await inner.save(task('t1', { [TASK_REMINDERS_EXTENSION_URI]: batch, other: 1 }), context);
    await inner.save(task('t2', { [TASK_REMINDERS_EXTENSION_URI]: batch }), context);
    const store = new BatchFreeTaskStore(inner);
    expect((await store.load('t1', context))?.metadata).toEqual({ other: 1 });
    expect((await store.load('t2', context))?.metadata).toBeUndefined();
    const listed = await store.list(ListTasksRequest.fromJSON({ pageSize: 10 }), context);
    expect(Object.fromEntries(listed.tasks.map((t) => [t.id, t.metadata]))).toEqual({
      t1: { other: 1 },
      t2: undefined,
    });
  });
});
