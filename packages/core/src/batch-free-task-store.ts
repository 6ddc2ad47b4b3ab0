import type { ListTasksResponse, Task } from '@a2a-js/sdk';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import { TASK_REMINDERS_EXTENSION_URI } from './extension-uri.js';

/**
 * R66: an SDK TaskStore that keeps reminder event batches off the stored
 * task. The A2A server merges every status update's metadata into
 * `Task.metadata`, so without this each task would keep its last batch for
 * good: GetTask would carry and copy it for stock clients, and every status
 * update would load and save it again. Streams and push notifications get
 * the batches from the bus, not from the store, so they are unaffected.
 */
export class BatchFreeTaskStore implements TaskStore {
  /**
   * Tasks this store handed out with empty metadata (`{}`): the A2A server
   * merges a batch into the task it loaded and saves that same object, which
   * then goes back to `{}`, not to no metadata (W5).
   */
  private readonly loadedEmpty = new WeakSet<Task>();

  constructor(readonly inner: TaskStore) {}

  save(task: Task, context: ServerCallContext): Promise<void> {
    return this.inner.save(this.withoutBatch(task), context);
  }

  // A task saved before the store was wrapped may still hold a batch (R66).
  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const task = await this.inner.load(taskId, context);
    if (task === undefined) return undefined;
    const loaded = this.withoutBatch(task);
    if (isEmptyObject(loaded.metadata)) this.loadedEmpty.add(loaded);
    return loaded;
  }

  async list(...args: Parameters<TaskStore['list']>): Promise<ListTasksResponse> {
    const page = await this.inner.list(...args);
    if (!page.tasks.some(holdsBatch)) return page;
    return { ...page, tasks: page.tasks.map((t) => this.withoutBatch(t)) };
  }

  /**
   * The task without the batch, as a shallow copy (the caller's object is the
   * A2A server's own). Metadata that held nothing else is what it was before
   * the batch was merged in: `{}` for a task this store handed out so, else
   * none, as every task has before its first batch.
   */
  private withoutBatch(task: Task): Task {
    if (!holdsBatch(task)) return task;
    const { [TASK_REMINDERS_EXTENSION_URI]: _batch, ...rest } = task.metadata as Record<
      string,
      unknown
    >;
    const empty = Object.keys(rest).length === 0;
    return { ...task, metadata: empty && !this.loadedEmpty.has(task) ? undefined : rest };
  }
}

function holdsBatch(task: Task): boolean {
  const metadata = task.metadata;
  return (
    typeof metadata === 'object' && metadata !== null && TASK_REMINDERS_EXTENSION_URI in metadata
  );
}

function isEmptyObject(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  for (const _ in value) return false;
  return true;
}
