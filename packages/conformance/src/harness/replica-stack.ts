import { randomUUID } from 'node:crypto';
import type { Task } from '@a2a-js/sdk';
import type { A2ARequestHandler, AgentExecutor, TaskStore } from '@a2a-js/sdk/server';
import { resolveUserScope, ServerCallContext, UnauthenticatedUser } from '@a2a-js/sdk/server';
import { DatabaseTaskStore } from '@a2a-js/sdk/server/database';
import type { ReminderService, ReminderStoreKey } from '@a2a-reminders/core';
import {
  DatabaseReminderStore,
  EVENT_CHANNEL,
  GuardedTaskStore,
  migrateSdkTaskTable,
  openReminderDatabase,
  PostgresChangeSignal,
  refuseFollowUpsElsewhere,
  storeUnavailable,
  TaskLeaseKeeper,
} from '@a2a-reminders/database';
import type { TestDatabase } from '@a2a-reminders/database/testing';
import { createTestDatabase } from '@a2a-reminders/database/testing';
import type { TaskReminderEvent } from '@a2a-reminders/proto';
import { TaskReminderEventBatchSchema } from '@a2a-reminders/proto';
import type { TcpProxy } from '@a2a-reminders/test-support';
import { startTcpProxy } from '@a2a-reminders/test-support';
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
   * length on a lease pool of its own, wrapped around the executor, fencing
   * the replica's task saves (R71) and refusing follow-ups for tasks running
   * on another replica (R74), as the worker does. No leases when absent.
   */
  readonly leaseMs?: number;
  /**
   * The keeper's timer is not started: the case heartbeats and reaps by
   * hand (`keeper.reapNow()`), so no reap comes before the case wants one.
   */
  readonly reapByHand?: true;
  /**
   * The lease pool connects through the host's proxy (ReplicaHost.proxy),
   * its connections named `leaseApplicationName`, so a case can black-hole
   * or cut this replica's heartbeats alone (R70, R71).
   */
  readonly leaseThroughProxy?: true;
}

/** The FAILED status message of a task a replica ended because its lease expired (R53). */
export const ABANDONED_REASON =
  'The replica running this task stopped and its lease expired; another replica ended it FAILED. ' +
  'Send the task again to run it afresh.';

/** Connections of a replica's main pool (requests, task saves, reminder transactions). */
const MAIN_POOL_SIZE = 4;

/** The table of task leases (R53), as the spec names it. */
const TASK_LEASES_TABLE = 'a2a_task_leases';

/** A task's lease row as the database holds it (R53). */
export interface LeaseRow {
  readonly holder: string;
  /** On the database's clock. */
  readonly expired: boolean;
}

/**
 * Task saves a case makes fail (R72), per task, at one of two places:
 * `database` under the replica's GuardedTaskStore, as a lost connection
 * would (the guard tries such a save again), or `store` above it, as the
 * guard answers once it gave up (UNAVAILABLE): that status is never stored.
 */
export class SaveFaults {
  private readonly failing = new Map<string, { at: 'database' | 'store'; left: number }>();
  private readonly counts = new Map<string, number>();

  /** The next `times` saves of the task fail in the database (every one until `heal` when absent). */
  database(taskId: string, times = Number.POSITIVE_INFINITY): void {
    this.failing.set(taskId, { at: 'database', left: times });
  }

  /** Every save of the task fails as the guard answers one it gave up on, until `heal`. */
  store(taskId: string): void {
    this.failing.set(taskId, { at: 'store', left: Number.POSITIVE_INFINITY });
  }

  heal(taskId: string): void {
    this.failing.delete(taskId);
  }

  /** How many saves of the task failed. */
  failed(taskId: string): number {
    return this.counts.get(taskId) ?? 0;
  }

  /** `store` with the faults of `at` applied to its saves. */
  on(at: 'database' | 'store', store: TaskStore): TaskStore {
    return {
      save: async (task: Task, context: ServerCallContext) => {
        const fault = this.failing.get(task.id);
        if (fault !== undefined && fault.at === at && fault.left > 0) {
          fault.left -= 1;
          this.counts.set(task.id, this.failed(task.id) + 1);
          const lost = Object.assign(
            new Error('Connection terminated unexpectedly (a fault the conformance case injected)'),
            { code: '08006' },
          );
          throw at === 'database' ? lost : storeUnavailable(lost);
        }
        await store.save(task, context);
      },
      load: (taskId, context) => store.load(taskId, context),
      list: (...args) => store.list(...args),
    };
  }
}

interface ReplicaParts {
  /** Its name in task leases: unique per run, so no case renews another's leases. */
  readonly id: string;
  readonly listenerName: string;
  readonly leaseApplicationName: string;
  readonly db: Kysely<unknown>;
  readonly leaseDb: Kysely<unknown> | undefined;
  readonly guardedTaskStore: GuardedTaskStore;
  readonly reaperTaskStore: TaskStore;
  readonly store: DatabaseReminderStore;
  readonly changeSignal: PostgresChangeSignal;
  readonly saveFaults: SaveFaults;
  readonly errors: unknown[];
}

/**
 * One replica of a worker as the suite runs it (spec: Multi-replica
 * deployments), wired as the worker wires one with `--store postgres://…`
 * (apps/worker/src/worker-server.ts, worker-stores.ts): its own Kysely pool,
 * SDK DatabaseTaskStore behind a GuardedTaskStore (R69, R71, R72),
 * DatabaseReminderStore and PostgresChangeSignal on the database the
 * replicas share, and with `leaseMs` a TaskLeaseKeeper on a lease pool of
 * its own, reaping through the unguarded task store.
 */
export class Replica implements StackReplica {
  readonly id: string;
  /** The `application_name` of its LISTEN connection, which a case can find and cut (R54). */
  readonly listenerName: string;
  /** The `application_name` of its lease pool's connections (R70, R71). */
  readonly leaseApplicationName: string;
  readonly db: Kysely<unknown>;
  /** The SDK's store behind the guard (R69, R71, R72): a case's own saves go here. */
  readonly guardedTaskStore: GuardedTaskStore;
  /** What the stack's task store runs on: the guarded store, with the case's store-level faults. */
  readonly taskStore: TaskStore;
  readonly store: DatabaseReminderStore;
  readonly changeSignal: PostgresChangeSignal;
  /** Faults a case puts on the replica's task saves (R72). */
  readonly saveFaults: SaveFaults;
  /** What its LISTEN connection, pools and lease keeper reported (lost connections, lost leases). */
  readonly errors: unknown[];
  /** Tasks its lease keeper ended because another replica's lease expired (R53). */
  readonly endedTasks: ReminderStoreKey[] = [];
  /** Tasks this replica stopped owning, as its keeper told the execution (R71: onLeaseLost). */
  readonly lostLeases: ReminderStoreKey[] = [];
  private readonly leaseDb: Kysely<unknown> | undefined;
  private readonly reaperTaskStore: TaskStore;
  private leaseKeeper: TaskLeaseKeeper | undefined;
  private readonly executions = new Set<Promise<void>>();
  private closing: Promise<void> | undefined;

  private constructor(
    parts: ReplicaParts,
    private readonly options: ReplicaOptions,
  ) {
    this.id = parts.id;
    this.listenerName = parts.listenerName;
    this.leaseApplicationName = parts.leaseApplicationName;
    this.db = parts.db;
    this.leaseDb = parts.leaseDb;
    this.guardedTaskStore = parts.guardedTaskStore;
    this.taskStore = parts.saveFaults.on('store', parts.guardedTaskStore);
    this.reaperTaskStore = parts.reaperTaskStore;
    this.store = parts.store;
    this.changeSignal = parts.changeSignal;
    this.saveFaults = parts.saveFaults;
    this.errors = parts.errors;
  }

  static async join(
    database: TestDatabase,
    name: string,
    options: ReplicaOptions,
    proxy: TcpProxy | undefined,
  ): Promise<Replica> {
    const id = `${name}-${randomUUID().slice(0, 8)}`;
    const listenerName = `conformance-listener-${id}`;
    const leaseApplicationName = `conformance-lease-${id}`;
    const errors: unknown[] = [];
    const db = await database.open({ poolSize: MAIN_POOL_SIZE });
    let signal: PostgresChangeSignal | undefined;
    let leaseDb: Kysely<unknown> | undefined;
    try {
      const listenUrl = new URL(database.url);
      listenUrl.searchParams.set('application_name', listenerName);
      // A reconnect delay long enough that a case can commit while the
      // replica is deaf (R54); the case still checks that it was.
      signal = await PostgresChangeSignal.start(listenUrl.toString(), {
        reconnectMs: 500,
        onError: (error) => errors.push(error),
      });
      if (options.leaseMs !== undefined) {
        // As the worker: heartbeats on connections of their own, a statement
        // given a quarter of the lease, at least 2 s (R70); fencing (R71)
        // does not wait for a hung one.
        leaseDb = await openReminderDatabase(viaProxy(database.url, proxy), {
          poolSize: 2,
          applicationName: leaseApplicationName,
          statementTimeoutMs: Math.max(2_000, Math.floor(options.leaseMs / 4)),
          onIdleConnectionError: (error) => errors.push(error),
        });
      }
    } catch (error) {
      await signal?.close();
      await db.destroy();
      throw error;
    }
    const saveFaults = new SaveFaults();
    const guardedTaskStore = new GuardedTaskStore({
      db,
      taskStoreOn: (on) => saveFaults.on('database', new DatabaseTaskStore(on)),
    });
    return new Replica(
      {
        id,
        listenerName,
        leaseApplicationName,
        db,
        leaseDb,
        guardedTaskStore,
        reaperTaskStore: new DatabaseTaskStore(db),
        store: new DatabaseReminderStore(db),
        changeSignal: signal,
        saveFaults,
        errors,
      },
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
    if (this.options.leaseMs !== undefined && this.leaseDb !== undefined) {
      const keeper = new TaskLeaseKeeper({
        db: this.leaseDb,
        // As the worker: the reaper ends tasks it holds no lease of, so it
        // saves through the unguarded store (R53, R72).
        taskStore: this.reaperTaskStore,
        reminders: parts.reminders,
        replicaId: this.id,
        leaseMs: this.options.leaseMs,
        reason: ABANDONED_REASON,
        onTaskEnded: (key) => this.endedTasks.push(key),
        onLeaseLost: (key) => this.lostLeases.push(key),
        onError: (error) => this.errors.push(error),
      });
      // R71: every status this replica's executions store is checked against its lease.
      this.guardedTaskStore.fenceWith(keeper);
      if (this.options.reapByHand === undefined) keeper.start();
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

  /** R74: with leases, a message for a task running on another replica is refused, as the worker does. */
  wrapRequestHandler(handler: A2ARequestHandler): A2ARequestHandler {
    return this.leaseKeeper === undefined
      ? handler
      : refuseFollowUpsElsewhere(handler, this.leaseKeeper);
  }

  /**
   * R73, a clean stop as the worker makes one: its running executions are
   * cancelled (`cancelExecutions`), the keeper waits until each returned,
   * handed its lease over and had its task's last status stored
   * (`drain()`), and only then does the replica close its keeper, LISTEN
   * connection and pools. Its servers stay up until the stack closes.
   */
  async stopCleanly(cancelExecutions: () => void): Promise<void> {
    cancelExecutions();
    await this.keeper.drain();
    await this.close();
  }

  /**
   * Takes every connection of the replica's main pool, each in an open
   * transaction, until `release()`, as a burst of other requests would: a
   * call that needs a connection meanwhile waits for one.
   */
  async occupyPool(): Promise<{ release(): Promise<void> }> {
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const taken: Promise<void>[] = [];
    const held: Promise<void>[] = [];
    for (let i = 0; i < MAIN_POOL_SIZE; i += 1) {
      let took = () => {};
      taken.push(
        new Promise<void>((resolve) => {
          took = resolve;
        }),
      );
      held.push(
        this.db.transaction().execute(async () => {
          took();
          await released;
        }),
      );
    }
    await within(Promise.all(taken), `every connection of replica ${this.id}'s pool to be taken`);
    return {
      release: async () => {
        release();
        await Promise.all(held);
      },
    };
  }

  /** The task's lease row (any owner, any tenant), read on the database's clock; none once released. */
  async leaseOf(taskId: string): Promise<LeaseRow | undefined> {
    const { rows } = await sql<{ holder: string; expired: boolean }>`
      select holder,
        expires_ms < (extract(epoch from clock_timestamp()) * 1000)::bigint as expired
      from ${sql.table(TASK_LEASES_TABLE)} where task_id = ${taskId}`.execute(this.db);
    const [row, more] = rows;
    if (more !== undefined) throw new Error(`task ${taskId} has ${rows.length} lease rows`);
    return row === undefined ? undefined : { holder: row.holder, expired: row.expired };
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

  close(): Promise<void> {
    this.closing ??= (async () => {
      // The stack released its executions before calling this.
      await within(Promise.all([...this.executions]), `replica ${this.id}'s executions to return`);
      await this.leaseKeeper?.close();
      await this.changeSignal.close();
      await this.leaseDb?.destroy();
      await this.db.destroy();
    })();
    return this.closing;
  }
}

/** The call context of the suite's anonymous caller, whose tasks the replica cases create. */
export function anonymousContext(): ServerCallContext {
  return new ServerCallContext({ user: new UnauthenticatedUser() });
}

/** `url` with its host and port those of `proxy`, when one is given. */
function viaProxy(url: string, proxy: TcpProxy | undefined): string {
  if (proxy === undefined) return url;
  const through = new URL(url);
  through.hostname = proxy.host;
  through.port = String(proxy.port);
  return through.toString();
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
  private tcpProxy: Promise<TcpProxy> | undefined;

  /** Stack options that make a stack the replica `name` on the shared database. */
  stack(name: string, options: ReplicaOptions = {}): StackOptions {
    return {
      replica: async () =>
        Replica.join(
          await this.shared(),
          name,
          options,
          options.leaseThroughProxy ? await this.proxy() : undefined,
        ),
    };
  }

  /** Starts another replica on the arm: its own stack and clients. */
  wire(arm: Arm, name: string, options: ReplicaOptions = {}): Promise<Wire> {
    return startWire(arm, this.stack(name, options));
  }

  /**
   * A loopback proxy in front of the shared database's server, which the
   * lease pools of replicas started with `leaseThroughProxy` go through: a
   * case breaks one replica's connections by their application name.
   */
  proxy(): Promise<TcpProxy> {
    this.tcpProxy ??= (async () => {
      const server = new URL((await this.shared()).url);
      return startTcpProxy({
        targetHost: server.hostname,
        targetPort: Number(server.port === '' ? 5432 : server.port),
      });
    })();
    return this.tcpProxy;
  }

  async drop(): Promise<void> {
    const proxy = this.tcpProxy;
    this.tcpProxy = undefined;
    await (await proxy?.catch(() => undefined))?.close();
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
