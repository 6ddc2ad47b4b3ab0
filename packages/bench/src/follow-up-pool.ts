import type { A2ARequestHandler, TaskStore } from '@a2a-js/sdk/server';
import { benchCaller, seedTaskRefs } from './seed-tasks.js';
import type { TaskRef } from './send-reminder-request.js';
import type { WorkingExecutor } from './working-executor.js';

/** The stored history of the pool's tasks: one message per follow-up on top of the seed's. */
export interface FollowUpHistory {
  readonly tasks: number;
  readonly meanMessages: number;
  readonly maxMessages: number;
}

/**
 * The SendMessage workaround arms' own WORKING tasks. A follow-up ends the
 * bus of the task it addresses (working-executor.ts) and grows its history,
 * so these arms never touch the tasks the GetTask and Inject arms read.
 * The pool is seeded afresh before every workaround slice (outside the
 * measured window), so every slice starts from one-message histories:
 * otherwise each slice would run on the histories all earlier ones left,
 * and the figure would depend on the arm's place in the run. It is retired
 * right after the slice, so the arms after it do not run on its follow-ups.
 */
export class FollowUpPool {
  private generation = 0;
  private current: TaskRef[] = [];

  constructor(
    private readonly handler: A2ARequestHandler,
    private readonly taskStore: TaskStore,
    private readonly executor: WorkingExecutor,
    private readonly size: number,
  ) {}

  get tasks(): readonly TaskRef[] {
    return this.current;
  }

  /**
   * Retires the pool: its tasks stay WORKING in the task store, untouched from
   * now on; their executions are released and their stored histories cut back
   * to the seed's message. Kept whole, the pools' follow-ups held about 120 MB
   * of a default run's heap by its end, and a pool kept until the next renew
   * held some 18 MB through the arms after its slice, whose collections
   * marked it (README, "What the retained records cost").
   */
  async retire(): Promise<void> {
    const context = benchCaller();
    for (const ref of this.current) {
      this.executor.release(ref.id);
      const task = await this.taskStore.load(ref.id, context);
      if (task !== undefined) {
        await this.taskStore.save({ ...task, history: task.history.slice(0, 1) }, context);
      }
    }
    this.current = [];
  }

  /** Retires the current pool and seeds a fresh one. */
  async renew(): Promise<void> {
    await this.retire();
    this.generation += 1;
    this.current = await seedTaskRefs(this.handler, this.size, `followup${this.generation}`);
  }

  async history(): Promise<FollowUpHistory> {
    const context = benchCaller();
    const lengths: number[] = [];
    for (const ref of this.current) {
      const task = await this.taskStore.load(ref.id, context);
      lengths.push(task?.history?.length ?? 0);
    }
    const sum = lengths.reduce((a, b) => a + b, 0);
    return {
      tasks: lengths.length,
      meanMessages: lengths.length === 0 ? 0 : sum / lengths.length,
      maxMessages: lengths.length === 0 ? 0 : Math.max(...lengths),
    };
  }
}
