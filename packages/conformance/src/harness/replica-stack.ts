import { randomUUID } from 'node:crypto';
import type { AgentExecutor, TaskStore } from '@a2a-js/sdk/server';
import { resolveUserScope, ServerCallContext, UnauthenticatedUser } from '@a2a-js/sdk/server';
import { DatabaseTaskStore } from '@a2a-js/sdk/server/database';
import type { ReminderService, ReminderStoreKey } from '@a2a-reminders/core';
import {
  DatabaseReminderStore,
  EVENT_CHANNEL,
  migrateSdkTaskTable,
  PostgresChangeSignal,
  TaskLeaseKeeper,
} from '@a2a-reminders/database';
import type { TestDatabase } from '@a2a-reminders/database/testing';
import { createTestDatabase } from '@a2a-reminders/database/testing';
import type { TaskReminderEvent } from '@a2a-reminders/proto';
import { TaskReminderEventBatchSchema } from '@a2a-reminders/proto';
import { fromBinary } from '@bufbuild/protobuf';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Arm } from './arms.js';
import type { Stack, StackOptions, StackReplica } from './stack.js';
import { within } from './wait.js';
import type { Wire } from './wire.js';
import { startWire } from './wire.js';

/** What a replica of the suite runs besides its stores and LISTEN connection. */
export interface ReplicaOptions {
  /**
   * Task leases (R53): the replica runs a TaskLeaseKeeper with this lease
   * length, its heartbeat-and-reap timer started, wrapped around the
   * executor as the worker does. No leases when absent.
   */
  readonly leaseMs?: number;
}

/** The FAILED status message of a task a replica ended because its lease expired (R53). */
export const ABANDONED_REASON =
  'The replica running this task stopped and its lease expired; another replica ended it FAILED. ' +
  'Send the task again to run it afresh.';

/**
 * One replica of a worker as the suite runs it (spec: Multi-replica
 * deployments): its own Kysely pool, SDK DatabaseTaskStore,
 * DatabaseReminderStore and PostgresChangeSignal on the database the
 * replicas share, as the worker opens them with `--store postgres://…`.
 */
export class Replica implements StackReplica {
  /** What its LISTEN connection and lease keeper reported (lost connections, lost leases). */
  readonly errors: unknown[];
  /** Tasks its lease keeper ended because another replica's lease expired (R53). */
  readonly endedTasks: ReminderStoreKey[] = [];
  private leaseKeeper: TaskLeaseKeeper | undefined;
  private readonly executions = new Set<Promise<void>>();

  private constructor(
    /** Its name in task leases: unique per run, so no case renews another's leases. */
    readonly id: string,
    /** The `application_name` of its LISTEN connection, which a case can find and cut (R54). */
    readonly listenerName: string,
    readonly db: Kysely<unknown>,
    readonly taskStore: TaskStore,
    readonly store: DatabaseReminderStore,
    readonly changeSignal: PostgresChangeSignal,
    errors: unknown[],
    private readonly options: ReplicaOptions,
  ) {
    this.errors = errors;
  }

  static async join(
    database: TestDatabase,
    name: string,
    options: ReplicaOptions,
  ): Promise<Replica> {
    const id = `${name}-${randomUUID().slice(0, 8)}`;
    const listenerName = `conformance-listener-${id}`;
    const errors: unknown[] = [];
    const db = await database.open({ poolSize: 4 });
    let signal: PostgresChangeSignal;
    try {
      const listenUrl = new URL(database.url);
      listenUrl.searchParams.set('application_name', listenerName);
      // A reconnect delay long enough that a case can commit while the
      // replica is deaf (R54); the case still checks that it was.
      signal = await PostgresChangeSignal.start(listenUrl.toString(), {
        reconnectMs: 500,
        onError: (error) => errors.push(error),
      });
    } catch (error) {
      await db.destroy();
      throw error;
    }
    return new Replica(
      id,
      listenerName,
      db,
      new DatabaseTaskStore(db),
      new DatabaseReminderStore(db),
      signal,
      errors,
      options,
    );
  }

  /** The replica's lease keeper (R53); only a replica started with `leaseMs` has one. */
  get keeper(): TaskLeaseKeeper {
    if (this.leaseKeeper === undefined) {
      throw new Error(`replica ${this.id} has no lease keeper (ReplicaOptions.leaseMs)`);
    }
    return this.leaseKeeper;
  }

  wrapExecutor(
    executor: AgentExecutor,
    parts: { readonly reminders: ReminderService; readonly taskStore: TaskStore },
  ): AgentExecutor {
    let inner = executor;
    if (this.options.leaseMs !== undefined) {
      const keeper = new TaskLeaseKeeper({
        db: this.db,
        taskStore: parts.taskStore,
        reminders: parts.reminders,
        replicaId: this.id,
        leaseMs: this.options.leaseMs,
        reason: ABANDONED_REASON,
        onTaskEnded: (key) => this.endedTasks.push(key),
        onError: (error) => this.errors.push(error),
      });
      keeper.start();
      this.leaseKeeper = keeper;
      inner = keeper.wrapExecutor(executor);
    }
    return {
      execute: (requestContext, bus) => {
        const run = inner.execute(requestContext, bus);
        // Tracked so close() lets them finish (they release leases on this pool) first.
        const settled: Promise<void> = run
          .catch(() => {})
          .then(() => {
            this.executions.delete(settled);
          });
        this.executions.add(settled);
        return run;
      },
      cancelTask: (taskId, bus) => inner.cancelTask(taskId, bus),
    };
  }

  /**
   * Stops as a dead process does, as far as the other replicas can tell:
   * no more heartbeats (its leases are left to expire) and no LISTEN. Its
   * servers and executions stay up until the stack closes, but nothing of
   * this replica writes to the database meanwhile.
   */
  async crash(): Promise<void> {
    await this.leaseKeeper?.close();
    await this.changeSignal.close();
  }

  /** Cuts its LISTEN connection from the server side, as a network failure would (R54). */
  async cutListener(): Promise<number> {
    const { rows } = await sql<{ cut: boolean }>`
      select pg_terminate_backend(pid) as cut from pg_stat_activity
      where datname = current_database() and application_name = ${this.listenerName}
        and query = ${`LISTEN ${EVENT_CHANNEL}`}`.execute(this.db);
    return rows.filter((row) => row.cut).length;
  }

  /**
   * How many server sessions its listener has now, connecting or listening.
   * A step committed while it had none was notified to no session of this
   * replica: the replica can only learn of it from the log.
   */
  async listenerSessions(): Promise<number> {
    const { rows } = await sql<{ n: number | string }>`
      select count(*) as n from pg_stat_activity
      where datname = current_database() and application_name = ${this.listenerName}`.execute(
      this.db,
    );
    return Number(rows[0]?.n ?? 0);
  }

  /**
   * The anonymous caller's task's event batches as the log holds them
   * (R52): what the replica running it must deliver, in this order.
   */
  async loggedBatches(taskId: string): Promise<TaskReminderEvent[][]> {
    const owner = resolveUserScope(new ServerCallContext({ user: new UnauthenticatedUser() }));
    const logged = await this.store.eventLog.after({ tenant: '', owner, taskId }, 0, 10_000);
    return logged.map((entry) => fromBinary(TaskReminderEventBatchSchema, entry.batch).events);
  }

  async close(): Promise<void> {
    // The stack released its executions before calling this.
    await within(Promise.all([...this.executions]), `replica ${this.id}'s executions to return`);
    await this.leaseKeeper?.close();
    await this.changeSignal.close();
    await this.db.destroy();
  }
}

/** The replica a stack is (StackOptions.replica). */
export function replicaOf(stack: Stack): Replica {
  if (!(stack.replica instanceof Replica)) throw new Error('this stack is not a replica');
  return stack.replica;
}

/**
 * The PostgreSQL database that one test file's replicas share: created on
 * first use with the SDK's task table and the reminder tables, as a worker
 * with `--store postgres://…` finds it, and dropped by `drop()`.
 */
export class ReplicaHost {
  private database: Promise<TestDatabase> | undefined;

  /** Stack options that make a stack the replica `name` on the shared database. */
  stack(name: string, options: ReplicaOptions = {}): StackOptions {
    return { replica: async () => Replica.join(await this.shared(), name, options) };
  }

  /** Starts another replica on the arm: its own stack and clients. */
  wire(arm: Arm, name: string, options: ReplicaOptions = {}): Promise<Wire> {
    return startWire(arm, this.stack(name, options));
  }

  async drop(): Promise<void> {
    const made = this.database;
    this.database = undefined;
    await (await made?.catch(() => undefined))?.drop();
  }

  private shared(): Promise<TestDatabase> {
    this.database ??= (async () => {
      const database = await createTestDatabase('postgres');
      await migrateSdkTaskTable(database.url);
      return database;
    })();
    return this.database;
  }
}
