import { randomUUID } from 'node:crypto';
import type {
  AgentExecutor,
  ExecutionEventBus,
  OwnerResolver,
  RequestContext,
  ServerCallContext,
  TaskStore,
} from '@a2a-js/sdk/server';
import { resolveUserScope } from '@a2a-js/sdk/server';
import type { ReminderService, ReminderStoreKey } from '@a2a-reminders/core';
import type { Kysely } from 'kysely';
import { endAbandonedTask } from './end-abandoned-task.js';
import { TaskLeases } from './task-leases.js';

/** Most expired leases one claim statement takes; a reap pass claims until none is left. */
const CLAIM_BATCH = 100;

export interface TaskLeaseKeeperOptions {
  /**
   * The PostgreSQL database every replica shares, for the lease table only.
   * Give the keeper a Kysely instance of its own (a pool of 2 is plenty):
   * on the pool that serves requests, a backlog of queued calls would delay
   * heartbeats past the lease and make this live replica look dead (R53).
   */
  readonly db: Kysely<unknown>;
  /** The SDK TaskStore the replicas' request handlers use. */
  readonly taskStore: TaskStore;
  readonly reminders: Pick<ReminderService, 'endTask'>;
  /** This replica's name, unique among the replicas alive at once. */
  readonly replicaId: string;
  /** How long a lease lasts unless renewed (default 10 000 ms). */
  readonly leaseMs?: number;
  /** How often this replica heartbeats and reaps (default `leaseMs / 4`); less than `leaseMs`. */
  readonly reapIntervalMs?: number;
  /** The FAILED status message of a task ended because its replica's lease expired. */
  readonly reason: string;
  /** The owner resolver of the worker's stores (default the SDK's `resolveUserScope`). */
  readonly ownerResolver?: OwnerResolver;
  /**
   * A call context under which the stores find a task of a given key, for
   * ending it (see `endAbandonedTask`). Needed with an `ownerResolver` other
   * than the default, which the keeper cannot invert.
   */
  readonly contextOf?: (key: ReminderStoreKey) => ServerCallContext;
  /** The SDK `DatabaseTaskStore`'s table (default `tasks`), read to drop handed-over leases. */
  readonly taskTable?: string;
  /**
   * R71: how long before its lease could expire a replica stops acting as
   * the owner of a task whose lease it could not renew (default
   * `reapIntervalMs`). Its executions are fenced at `leaseMs -
   * fenceMarginMs` after the start of the last heartbeat that renewed them.
   */
  readonly fenceMarginMs?: number;
  /**
   * R72: how long after an execution returned its handed-over lease is
   * renewed while the task is still stored SUBMITTED or WORKING (its last
   * status not saved), in ms (default `leaseMs`). Then the lease is left to
   * expire, and a reaper ends the task FAILED with `unsavedReason`.
   */
  readonly handOverGraceMs?: number;
  /** The FAILED status message of a task whose execution returned but whose last status was never stored (R72). */
  readonly unsavedReason?: string;
  /**
   * Called when this replica stops owning a task it runs (R71): its lease
   * was not renewed in time or another replica took it. The execution's
   * events are dropped from then on; stop its work here (e.g. abort the
   * agent's loop).
   */
  readonly onLeaseLost?: (key: ReminderStoreKey) => void;
  /** Called for each task this replica ended after its lease expired. */
  readonly onTaskEnded?: (key: ReminderStoreKey) => void;
  /** Failures of the timer's work, which has no caller to throw to (default `console.error`). */
  readonly onError?: (error: unknown) => void;
}

/** One task this replica runs, shared by its executions here (normally one). */
interface HeldLease {
  readonly key: ReminderStoreKey;
  readonly id: string;
  executions: number;
  /** `performance.now()` at the start of the last statement that extended this lease (R71). */
  renewedAt: number;
  /** Set once this replica stopped owning the task (R71); the executions' events are dropped. */
  lost: boolean;
  /** Set once the lease row names this replica. */
  acquired: boolean;
}

/** A lease an execution handed over when it returned (R72), until its task's last status is stored. */
interface HandedOverLease {
  readonly key: ReminderStoreKey;
  /** `performance.now()` when it was handed over. */
  readonly at: number;
}

/** Where this replica stands with a task, for its saves (R71). */
export type LeaseStanding = 'running' | 'returned' | 'lost' | 'none';

/** The FAILED reason of a task whose last status was never stored (R72), by default. */
export const UNSAVED_REASON =
  "The task's execution ended, but its last status was never stored (the database was " +
  'unavailable, or the replica stopped first), so it was ended as FAILED. Send the task again ' +
  'to run it afresh.';

/** How long a lost lease is remembered, in leases, so late saves of its execution are refused (R71). */
const LOST_MEMORY_LEASES = 30;

/**
 * Task leases for the replicas of a worker on one PostgreSQL database (R53).
 *
 * Every execution runs under a lease naming this replica, taken before the
 * executor starts and released when it returns ({@link wrapExecutor}). One
 * timer per replica renews all of this replica's leases (the heartbeat) and
 * then reaps: it claims leases that expired, whose replica stopped
 * heartbeating because it died or was cut off from the database, and ends
 * each such task FAILED, reminders first (R27), with `endAbandonedTask`.
 *
 * Bound: a task whose replica died is ended within `leaseMs +
 * reapIntervalMs` (plus the time to end it) after that replica's last
 * heartbeat: its lease runs out `leaseMs` after that heartbeat, and every
 * surviving replica reaps once per `reapIntervalMs`. A live replica
 * heartbeats every `reapIntervalMs`, so it keeps its leases while fewer than
 * `leaseMs / reapIntervalMs` heartbeats in a row fail or are late. Expiry is
 * on the database's clock, so replicas' clocks need not agree.
 *
 * A replica that cannot renew a lease for `leaseMs - fenceMarginMs`, or
 * finds it gone, stops owning the task before anyone else may take it
 * (R71): the execution's events are dropped, `onLeaseLost` is told, and the
 * lease is given up. Saves through a `GuardedTaskStore` fenced with this
 * keeper are checked against the lease, so such a replica never overwrites
 * what another stored since.
 *
 * Wrap the executor outermost (around the reminder service's wrapper), so
 * the lease covers the whole execution, including its reminders' ending.
 */
export class TaskLeaseKeeper {
  private readonly leases: TaskLeases;
  private readonly options: TaskLeaseKeeperOptions;
  private readonly leaseMs: number;
  private readonly reapIntervalMs: number;
  private readonly ownerResolver: OwnerResolver;
  private readonly onError: (error: unknown) => void;
  /**
   * The name leases are held under: the replica id and a suffix of this
   * process's own, so a restart that reuses the id never renews the leases
   * its dead predecessor left (they must expire, R53).
   */
  readonly holder: string;
  /** A reaper's claim is held under this name, which no heartbeat renews. */
  private readonly claimant: string;
  /**
   * An execution that returned hands its lease to this name: renewed by this
   * replica's heartbeat only until the SDK has stored the task's last status.
   */
  private readonly returned: string;
  /** Acquires and hand-overs of one task, in the order the executions asked for them. */
  private readonly steps = new Map<string, Promise<void>>();
  private readonly held = new Map<string, HeldLease>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private heartbeating: Promise<void> | undefined;
  private reaping: Promise<void> | undefined;
  /** Releases under way, so closing waits for them before the caller closes the database. */
  private readonly releasing = new Set<Promise<void>>();
  private readonly fenceMarginMs: number;
  private readonly handOverGraceMs: number;
  /** R72: handed-over leases of this replica, by key id. */
  private readonly handedOver = new Map<string, HandedOverLease>();
  /** R71: tasks this replica stopped owning, by key id, with when (`performance.now()`). */
  private readonly lostAt = new Map<string, number>();
  /** Executions running under this keeper, so a clean stop can wait for them. */
  private readonly running = new Set<Promise<void>>();
  /**
   * A name an abandoned hand-over is moved to (R72): no heartbeat renews it,
   * so the lease expires and a reaper ends the task with `unsavedReason`.
   */
  private readonly unsaved: string;
  /** R71: a fenced execution's lease is moved to this name, which expires at once. */
  private readonly fenced: string;
  /** R71: given-up leases whose row may still be under this replica's running name. */
  private readonly unfenced = new Map<string, ReminderStoreKey>();

  constructor(options: TaskLeaseKeeperOptions) {
    this.options = options;
    this.leases = new TaskLeases(options.db);
    this.leaseMs = options.leaseMs ?? 10_000;
    this.reapIntervalMs = options.reapIntervalMs ?? Math.max(1, Math.floor(this.leaseMs / 4));
    if (!Number.isSafeInteger(this.leaseMs) || this.leaseMs < 1) {
      throw new RangeError(`leaseMs must be a positive whole number of ms, not ${this.leaseMs}`);
    }
    if (!(this.reapIntervalMs > 0 && this.reapIntervalMs < this.leaseMs)) {
      // A heartbeat at least as far apart as the lease lets live leases expire.
      throw new RangeError(
        `reapIntervalMs (${this.reapIntervalMs}) must be positive and less than leaseMs (${this.leaseMs})`,
      );
    }
    if (options.replicaId === '') throw new RangeError('replicaId must not be empty');
    this.ownerResolver = options.ownerResolver ?? resolveUserScope;
    this.onError = options.onError ?? ((error) => console.error(error));
    this.holder = `${options.replicaId}#${randomUUID().slice(0, 8)}`;
    this.claimant = `${this.holder} (reaping)`;
    this.returned = `${this.holder} (returned)`;
    this.unsaved = `${this.holder} (unsaved)`;
    this.fenced = `${this.holder} (fenced)`;
    this.fenceMarginMs = options.fenceMarginMs ?? this.reapIntervalMs;
    if (!(this.fenceMarginMs >= 0 && this.fenceMarginMs < this.leaseMs)) {
      throw new RangeError(
        `fenceMarginMs (${this.fenceMarginMs}) must be at least 0 and less than leaseMs (${this.leaseMs})`,
      );
    }
    this.handOverGraceMs = options.handOverGraceMs ?? this.leaseMs;
  }

  /**
   * The executor with every `execute` run under this replica's lease of the
   * task: acquired before the inner executor starts (a failure to acquire
   * fails the execution, which no replica could recover otherwise) and
   * released when it returns or throws. `cancelTask` passes through: it
   * publishes on the execution's bus, and the execution holds the lease.
   */
  wrapExecutor(executor: AgentExecutor): AgentExecutor {
    return {
      execute: (requestContext, eventBus) => {
        const run = (async () => {
          const lease = await this.hold(this.keyOf(requestContext));
          try {
            // R71: once the lease is lost, nothing this execution publishes goes out.
            await executor.execute(
              requestContext,
              fencedBus(eventBus, () => lease.lost),
            );
          } finally {
            await this.letGo(lease);
          }
        })();
        const tracked = run.then(
          () => {},
          () => {},
        );
        this.running.add(tracked);
        void tracked.then(() => this.running.delete(tracked));
        return run;
      },
      cancelTask: (taskId, eventBus) => executor.cancelTask(taskId, eventBus),
    };
  }

  /** Starts the heartbeat-and-reap timer; it does not keep the process alive. */
  start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => this.tick(), this.reapIntervalMs);
    this.timer.unref();
  }

  /** One heartbeat, then one reap pass, awaited (tests; the timer runs them on its own). */
  async reapNow(): Promise<void> {
    await this.heartbeat();
    await this.reap();
  }

  /**
   * Stops the timer and waits for its work in flight. Leases of executions
   * still running are left to expire, not released: this replica is going
   * away, and if those executions die with it a surviving replica must end
   * their tasks (R53), which a released lease would hide from it. An
   * execution that returns after this still releases its own lease.
   */
  async close(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    await Promise.allSettled([this.heartbeating, this.reaping, ...this.releasing]);
  }

  /**
   * R73, a clean stop: waits for every execution under this keeper to
   * return and hand its lease over, then until the SDK has stored each such
   * task's last status and its lease is dropped, for at most `maxMs`. A lease
   * still there then is left to expire, so a reaper ends its task (R53, R72).
   * Call it after cancelling the executions and before {@link close}.
   */
  async drain(maxMs = 10_000): Promise<void> {
    const deadline = performance.now() + maxMs;
    const until = (ms: number) =>
      new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)).unref());
    while (this.running.size > 0 && performance.now() < deadline) {
      await Promise.race([
        Promise.allSettled([...this.running]),
        until(deadline - performance.now()),
      ]);
    }
    await Promise.allSettled([...this.releasing]);
    while (this.handedOver.size > 0 && performance.now() < deadline) {
      try {
        await this.settleHandOvers();
      } catch (error) {
        this.onError(error);
      }
      if (this.handedOver.size > 0) await until(Math.min(50, deadline - performance.now()));
    }
  }

  /**
   * Where this replica stands with a task (R71): `running` while one of its
   * executions holds the lease, `returned` while a handed-over lease waits
   * for the task's last status, `lost` once it stopped owning the task, and
   * `none` for a task it does not run.
   */
  standing(key: ReminderStoreKey): LeaseStanding {
    const id = idOf(key);
    const lease = this.held.get(id);
    if (lease !== undefined) {
      if (lease.lost) return 'lost';
      // Until its row is written the lease guards nothing yet.
      if (!lease.acquired) return 'none';
      if (this.overdue(lease)) this.lose(lease, 'its lease was not renewed in time');
      return lease.lost ? 'lost' : 'running';
    }
    if (this.handedOver.has(id)) return 'returned';
    return this.lostAt.has(id) ? 'lost' : 'none';
  }

  /**
   * The lease names a save of a task this replica runs or ran may find in
   * the lease row (R71): both are this replica's own, and which one the row
   * holds depends on whether a hand-over under way has been written yet.
   */
  ownNames(): string[] {
    return [this.holder, this.returned];
  }

  /**
   * Records that this replica no longer owns the task (R71), e.g. when a
   * save found its lease gone; its executions are stopped.
   */
  markLost(key: ReminderStoreKey, why: string): void {
    const id = idOf(key);
    const lease = this.held.get(id);
    if (lease !== undefined) this.lose(lease, why);
    else if (this.handedOver.delete(id)) this.lostAt.set(id, performance.now());
  }

  /**
   * The replica whose running execution holds a live lease on the task, if
   * it is another one than this (R74): a follow-up message for the task must
   * go there. A returned execution's lease, a reaper's claim or an expired
   * lease names no running execution.
   */
  async runningElsewhere(key: ReminderStoreKey): Promise<string | undefined> {
    const holder = await this.leases.liveHolder(key);
    if (holder === undefined || holder === this.holder || holder.endsWith(')')) return undefined;
    return holder;
  }

  private keyOf(requestContext: RequestContext): ReminderStoreKey {
    const context = requestContext.context;
    // Scoped as the SDK's stores and the reminder service scope the task.
    return {
      tenant: context.tenant ?? '',
      owner: this.ownerResolver(context),
      taskId: requestContext.taskId,
    };
  }

  private async hold(key: ReminderStoreKey): Promise<HeldLease> {
    const id = idOf(key);
    const existing = this.held.get(id);
    const lease =
      existing !== undefined && !existing.lost
        ? existing
        : { key, id, executions: 0, renewedAt: performance.now(), lost: false, acquired: false };
    // Counted before the acquire is awaited, so a previous execution's
    // hand-over, queued behind it or not, sees this one running.
    lease.executions += 1;
    this.held.set(id, lease);
    this.handedOver.delete(id);
    this.lostAt.delete(id);
    this.unfenced.delete(id);
    try {
      await this.step(id, async () => {
        const started = performance.now();
        await this.leases.acquire(key, this.holder, this.leaseMs);
        lease.renewedAt = Math.max(lease.renewedAt, started);
        lease.acquired = true;
      });
    } catch (error) {
      lease.executions -= 1;
      if (lease.executions === 0 && this.held.get(id) === lease) this.held.delete(id);
      throw error;
    }
    return lease;
  }

  /** Runs a lease write of one task after the ones asked for before it. */
  private step(id: string, write: () => Promise<void>): Promise<void> {
    const run = (this.steps.get(id) ?? Promise.resolve()).then(write);
    const settled = run.then(
      () => {},
      () => {},
    );
    this.steps.set(id, settled);
    void settled.then(() => {
      if (this.steps.get(id) === settled) this.steps.delete(id);
    });
    return run;
  }

  private async letGo(lease: HeldLease): Promise<void> {
    lease.executions -= 1;
    // A lease reported lost is no longer this replica's: its row, if any, is someone else's.
    if (lease.executions > 0 || this.held.get(lease.id) !== lease) return;
    this.held.delete(lease.id);
    // R71: from here the task's saves are checked against the handed-over
    // lease (or refused, if lost), with no moment in which they are not.
    if (lease.lost) this.lostAt.set(lease.id, performance.now());
    else this.handedOver.set(lease.id, { key: lease.key, at: performance.now() });
    // Handed over, not deleted: the SDK stores the execution's last status
    // after it returns, and a replica dying in between must not leave the
    // task WORKING with no lease (R53). The heartbeat drops it once that
    // status is stored. Skipped if another execution started meanwhile.
    const release = this.step(lease.id, async () => {
      if (lease.executions > 0 || lease.lost) return;
      await this.leases.handOver(lease.key, this.holder, this.returned, this.leaseMs);
    });
    const settled = release.catch((error) => {
      // The execution's own outcome stands; the lease expires and a reaper
      // finds the task no longer running.
      this.onError(
        new Error(`task lease: could not release the lease of task ${lease.key.taskId}`, {
          cause: error,
        }),
      );
    });
    this.releasing.add(settled);
    try {
      await settled;
    } finally {
      this.releasing.delete(settled);
    }
  }

  private tick(): void {
    // R71: checked every tick, even while a heartbeat hangs on a dead connection.
    this.fenceOverdue();
    // A slow reap must not delay the heartbeat, or this replica's own leases could expire.
    if (this.heartbeating === undefined) {
      this.heartbeating = this.heartbeat()
        .catch(this.onError)
        .finally(() => {
          this.heartbeating = undefined;
        });
    }
    if (this.reaping === undefined) {
      this.reaping = this.reap()
        .catch(this.onError)
        .finally(() => {
          this.reaping = undefined;
        });
    }
  }

  private async heartbeat(): Promise<void> {
    // R71: leases this replica could not renew in time are fenced before
    // they can expire, whether or not this heartbeat gets through.
    this.fenceOverdue();
    await this.fenceRows();
    // Leases acquired while the renew runs are not in it; only these are checked.
    const before = [...this.held.values()];
    const started = performance.now();
    const renewed = new Set((await this.leases.renew(this.holder, this.leaseMs)).map(idOf));
    for (const lease of before) {
      if (this.held.get(lease.id) !== lease || lease.lost) continue;
      if (renewed.has(lease.id)) lease.renewedAt = Math.max(lease.renewedAt, started);
      else this.lose(lease, 'another replica ended the task or took it over');
    }
    await this.settleHandOvers();
  }

  /**
   * R53, R72: drops handed-over leases whose task is stored in its last
   * state, renews the others, and moves those past the grace to a name no
   * heartbeat renews, so they expire and a reaper ends their tasks.
   */
  private async settleHandOvers(): Promise<void> {
    const now = performance.now();
    for (const [id, lease] of this.handedOver) {
      if (now - lease.at <= this.handOverGraceMs) continue;
      this.handedOver.delete(id);
      this.lostAt.set(id, now);
      await this.leases.handOver(lease.key, this.returned, this.unsaved, this.leaseMs);
    }
    const kept = await this.leases.settleHandedOver(
      this.returned,
      this.leaseMs,
      this.options.taskTable ?? 'tasks',
    );
    const keptIds = new Set(kept.map(idOf));
    for (const id of this.handedOver.keys()) if (!keptIds.has(id)) this.handedOver.delete(id);
    for (const [id, at] of this.lostAt) {
      if (now - at > LOST_MEMORY_LEASES * this.leaseMs) this.lostAt.delete(id);
    }
  }

  private overdue(lease: HeldLease): boolean {
    return performance.now() - lease.renewedAt > this.leaseMs - this.fenceMarginMs;
  }

  private fenceOverdue(): void {
    for (const lease of this.held.values()) {
      if (!lease.lost && this.overdue(lease)) this.lose(lease, 'its lease was not renewed in time');
    }
  }

  /** R71: this replica stops acting as the task's owner. */
  private lose(lease: HeldLease, why: string): void {
    lease.lost = true;
    this.lostAt.set(lease.id, performance.now());
    const { tenant, owner, taskId } = lease.key;
    this.onError(
      new Error(
        `task lease lost: replica ${this.holder} stopped running task ${taskId} ` +
          `(tenant ${JSON.stringify(tenant)}, owner ${JSON.stringify(owner)}): ${why}. ` +
          'Its execution here is stopped and its writes are refused (R71); another replica ' +
          'ends the task (R53) unless a newer execution took it over.',
      ),
    );
    try {
      this.options.onLeaseLost?.(lease.key);
    } catch (error) {
      this.onError(error);
    }
    // If the row is still this replica's (its heartbeats were only late), it
    // goes to a name no heartbeat renews and expires at once, so a reaper
    // ends the task now rather than a lease outliving its execution. Until
    // that write gets through, every heartbeat tries it again first.
    this.unfenced.set(lease.id, lease.key);
    void this.fenceRows().catch((error: unknown) => this.onError(error));
  }

  /**
   * R71: moves the rows of leases this replica gave up to the fenced name,
   * before any renewal: `renew` extends every row under the running name,
   * and a given-up row it extended would never expire.
   */
  private async fenceRows(): Promise<void> {
    for (const [id, key] of this.unfenced) {
      await this.step(id, () => this.leases.handOver(key, this.holder, this.fenced, 1));
      this.unfenced.delete(id);
    }
  }

  private async reap(): Promise<void> {
    for (;;) {
      const claimed = await this.leases.claimExpired(this.claimant, CLAIM_BATCH, this.leaseMs);
      for (const lease of claimed) {
        const key = { tenant: lease.tenant, owner: lease.owner, taskId: lease.taskId };
        let ended: boolean;
        try {
          // A new execution took the task over, or this claim ran out and
          // another reaper has it: not ours to end.
          if (!(await this.leases.extendClaim(key, this.claimant, this.leaseMs))) continue;
          ended = await endAbandonedTask(key, {
            taskStore: this.options.taskStore,
            reminders: this.options.reminders,
            // R72: a hand-over that outlived its grace: the last status never got stored.
            reason: isHandOverName(lease.holder)
              ? (this.options.unsavedReason ?? UNSAVED_REASON)
              : this.options.reason,
            ...(this.options.contextOf === undefined ? {} : { contextOf: this.options.contextOf }),
          });
          // Only once the task is ended: a claim left behind expires and is retried.
          await this.leases.release(key, this.claimant);
        } catch (error) {
          // One task that cannot be ended does not keep the others from being ended.
          this.onError(
            new Error(
              `task lease: could not end task ${key.taskId}, abandoned by replica ${lease.holder}; ` +
                'a reap retries it once this claim expires',
              { cause: error },
            ),
          );
          continue;
        }
        if (ended) this.report(key);
      }
      if (claimed.length < CLAIM_BATCH) return;
    }
  }

  private report(key: ReminderStoreKey): void {
    try {
      this.options.onTaskEnded?.(key);
    } catch (error) {
      this.onError(error);
    }
  }
}

/** One string per key, for the map of held leases. */
function idOf(key: ReminderStoreKey): string {
  return JSON.stringify([key.tenant, key.owner, key.taskId]);
}

/** Whether a lease holder name is an execution's hand-over (R53, R72), not a running execution. */
function isHandOverName(holder: string): boolean {
  return holder.endsWith(' (returned)') || holder.endsWith(' (unsaved)');
}

/**
 * The execution's event bus, with publishing cut off once `lost()` says the
 * replica stopped owning the task (R71): the execution may take a moment to
 * stop, and nothing it publishes meanwhile may reach the task's streams or
 * store.
 */
function fencedBus(bus: ExecutionEventBus, lost: () => boolean): ExecutionEventBus {
  return new Proxy(bus, {
    get(target, property, receiver) {
      if (property === 'publish') {
        return (event: Parameters<ExecutionEventBus['publish']>[0]) => {
          if (!lost()) target.publish(event);
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
