import type { Task } from '@a2a-js/sdk';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';

/**
 * A TaskStore that knows when the SDK has stopped saving, so the worker can
 * close its database only after a cancelled task's last status (CANCELED,
 * after its reminders' fates) is stored, and not under an in-flight save.
 */
export class SettlingTaskStore implements TaskStore {
  private pending = 0;
  private lastActivity = Date.now();

  constructor(private readonly inner: TaskStore) {}

  async save(task: Task, context: ServerCallContext): Promise<void> {
    this.pending += 1;
    this.lastActivity = Date.now();
    try {
      await this.inner.save(task, context);
    } finally {
      this.pending -= 1;
      this.lastActivity = Date.now();
    }
  }

  load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    return this.inner.load(taskId, context);
  }

  list(...args: Parameters<TaskStore['list']>): ReturnType<TaskStore['list']> {
    return this.inner.list(...args);
  }

  /**
   * Resolves once no save is running and none started for `quietMs`, or
   * after `maxMs` (a shutdown must end even if saves keep coming).
   */
  async settled(quietMs = 50, maxMs = 5000): Promise<void> {
    const deadline = Date.now() + maxMs;
    while (Date.now() < deadline) {
      if (this.pending === 0 && Date.now() - this.lastActivity >= quietMs) return;
      await new Promise((resolve) => setTimeout(resolve, quietMs));
    }
  }
}
