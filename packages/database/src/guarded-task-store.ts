import type { Task } from '@a2a-js/sdk';
import { UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { OwnerResolver, ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import { resolveUserScope } from '@a2a-js/sdk/server';
import type { ReminderStoreKey } from '@a2a-reminders/core';
import type { Kysely } from 'kysely';
import type { TaskLeaseKeeper } from './lease-keeper.js';
import type { ReminderDatabase } from './schema.js';
import { rethrowStoreFailure, withStoreRetry } from './store-errors.js';
import { TaskLeases } from './task-leases.js';

export interface GuardedTaskStoreOptions {
  /** The database of the SDK's task table (the instance the stores share). */
  readonly db: Kysely<unknown>;
  /** The SDK's store on a given instance or transaction, e.g. `(db) => new DatabaseTaskStore(db)`. */
  readonly taskStoreOn: (db: Kysely<unknown>) => TaskStore;
  /** The owner resolver of the SDK's stores (default the SDK's `resolveUserScope`). */
  readonly ownerResolver?: OwnerResolver;
  /**
   * R72: how long a load or save that fails for the database's sake is
   * tried again before the failure goes to the SDK, in ms (default 10 000).
   */
  readonly saveRetryMs?: number;
}

/**
 * A save refused because this replica no longer owns the task (R71). An
 * A2A UnsupportedOperationError, so a stock call that hits it (a CancelTask
 * on this replica) gets a typed answer saying why, not an internal error.
 */
export class LeaseLostError extends UnsupportedOperationError {
  override readonly name = 'LeaseLostError';
}

/**
 * The SDK's database task store as a replica must use it:
 * - R69: a read or save that fails for the database's sake throws
 *   UNAVAILABLE, which the reminder rpcs answer as such;
 * - R72: such a save is tried again for `saveRetryMs` (a save is an upsert
 *   of the whole task, so a repeat is harmless), so a blip does not leave a
 *   task's last status unstored;
 * - R71: with a lease keeper ({@link fenceWith}), a save of a task this
 *   replica runs is made in one transaction with a check, under the lease
 *   row's lock, that the lease is still this replica's, so a replica that
 *   lost its lease can never overwrite what another replica stored since.
 */
export class GuardedTaskStore implements TaskStore {
  private readonly options: GuardedTaskStoreOptions;
  private readonly inner: TaskStore;
  private readonly ownerResolver: OwnerResolver;
  private keeper: TaskLeaseKeeper | undefined;

  constructor(options: GuardedTaskStoreOptions) {
    this.options = options;
    this.inner = options.taskStoreOn(options.db);
    this.ownerResolver = options.ownerResolver ?? resolveUserScope;
  }

  /** Fences saves with the replica's lease keeper (R71); the keeper itself saves through an unguarded store. */
  fenceWith(keeper: TaskLeaseKeeper): void {
    this.keeper = keeper;
  }

  /**
   * R72: retried as a save is. The SDK loads a task before it stores each of
   * its events, and one failed load ends its storing of that task for good,
   * so a task would freeze in its last stored state at a passing blip.
   */
  load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    return this.retrying(() => this.inner.load(taskId, context));
  }

  list(...args: Parameters<TaskStore['list']>): ReturnType<TaskStore['list']> {
    return this.inner.list(...args).catch(rethrowStoreFailure);
  }

  save(task: Task, context: ServerCallContext): Promise<void> {
    return this.retrying(() => this.saveOnce(task, context));
  }

  /** R72: a failure for the database's sake tried again (100 ms, doubling to 2 s) for `saveRetryMs`. */
  private retrying<T>(attempt: () => Promise<T>): Promise<T> {
    const budgetMs = this.options.saveRetryMs ?? 10_000;
    return withStoreRetry(attempt, (_error, tries, elapsedMs) => {
      const pauseMs = Math.min(100 * 2 ** (tries - 1), 2_000);
      return elapsedMs + pauseMs <= budgetMs ? pauseMs : undefined;
    });
  }

  private async saveOnce(task: Task, context: ServerCallContext): Promise<void> {
    const keeper = this.keeper;
    const key: ReminderStoreKey = {
      tenant: context.tenant ?? '',
      owner: this.ownerResolver(context),
      taskId: task.id,
    };
    const standing = keeper?.standing(key) ?? 'none';
    if (standing === 'lost') throw lost(task.id);
    if (keeper === undefined || standing === 'none') {
      return this.inner.save(task, context);
    }
    await this.options.db.transaction().execute(async (trx) => {
      const q = trx as unknown as Kysely<ReminderDatabase>;
      if (!(await TaskLeases.stillHeld(q, key, keeper.ownNames()))) {
        keeper.markLost(key, 'a save found its lease gone');
        throw lost(task.id);
      }
      await this.options.taskStoreOn(trx).save(task, context);
    });
  }
}

function lost(taskId: string): LeaseLostError {
  return new LeaseLostError({
    message:
      `Task ${taskId} is no longer run by this replica of the agent (its lease was lost), so ` +
      'its status is not saved here; another replica ends it.',
    metadata: { taskId },
  });
}
