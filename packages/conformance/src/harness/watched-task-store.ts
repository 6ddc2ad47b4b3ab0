import type { Task, TaskState } from '@a2a-js/sdk';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import { reminderBatchOf } from '@a2a-reminders/core';
import type { TaskReminderEvent } from '@a2a-reminders/proto';
import { within } from './wait.js';

/**
 * An SDK TaskStore over the stack's own (R66's wrapper over the in-memory
 * store, or the SDK's DatabaseTaskStore that replicas share) that tells
 * waiters when a task is saved through it, so a case waits for the SDK to
 * persist a state it drove instead of sleeping. It records each save as the
 * A2A server handed it over, reminder batch included, above the store that
 * keeps batches off the stored task (R66).
 */
export class WatchedTaskStore implements TaskStore {
  private readonly history = new Map<string, Task[]>();
  private readonly waiters = new Set<() => void>();

  constructor(private readonly inner: TaskStore) {}

  async save(task: Task, context: ServerCallContext): Promise<void> {
    await this.inner.save(task, context);
    const copy = structuredClone(task);
    const saves = this.history.get(task.id);
    if (saves === undefined) this.history.set(task.id, [copy]);
    else saves.push(copy);
    for (const wake of [...this.waiters]) wake();
  }

  load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    return this.inner.load(taskId, context);
  }

  list(...args: Parameters<TaskStore['list']>): ReturnType<TaskStore['list']> {
    return this.inner.list(...args);
  }

  /** The task as it was last saved. */
  private latest(taskId: string): Task | undefined {
    return this.history.get(taskId)?.at(-1);
  }

  /** Every save of the task, oldest first, as it was handed to this store. */
  saves(taskId: string): readonly Task[] {
    return this.history.get(taskId) ?? [];
  }

  /**
   * The events of the last reminder batch the A2A server saved with the task
   * (R30): a status update's, which the store below keeps off the stored task
   * (R66), so a later save of the task no longer carries it.
   */
  lastSavedBatch(taskId: string): TaskReminderEvent[] {
    for (const task of [...this.saves(taskId)].reverse()) {
      const batch = reminderBatchOf({ taskId, metadata: task.metadata });
      if (batch !== undefined) return batch.events;
    }
    return [];
  }

  /** Resolves once the latest save of `taskId` has `state`. */
  async waitForState(taskId: string, state: TaskState): Promise<void> {
    if (this.latest(taskId)?.status?.state === state) return;
    let wake: (() => void) | undefined;
    const reached = new Promise<void>((resolve) => {
      wake = () => {
        if (this.latest(taskId)?.status?.state === state) resolve();
      };
      this.waiters.add(wake);
    });
    try {
      await within(reached, `task ${taskId} to be saved in state ${state}`);
    } finally {
      if (wake !== undefined) this.waiters.delete(wake);
    }
  }

  /** Resolves with the task once its latest save satisfies `done`. */
  async waitFor(taskId: string, done: (task: Task) => boolean, what: string): Promise<Task> {
    const check = (): Task | undefined => {
      const task = this.latest(taskId);
      return task !== undefined && done(task) ? task : undefined;
    };
    const now = check();
    if (now !== undefined) return now;
    let wake: (() => void) | undefined;
    const reached = new Promise<Task>((resolve) => {
      wake = () => {
        const task = check();
        if (task !== undefined) resolve(task);
      };
      this.waiters.add(wake);
    });
    try {
      return await within(reached, `task ${taskId} to be saved with ${what}`);
    } finally {
      if (wake !== undefined) this.waiters.delete(wake);
    }
  }
}
