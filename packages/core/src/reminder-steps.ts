import type { ExecutionEventBus, OwnerResolver, ServerCallContext } from '@a2a-js/sdk/server';
import type { Outcome } from './lifecycle.js';
import type { ReminderLimits } from './limits.js';
import type { BusRegistry, StatusFallback } from './publisher.js';
import type { ReplicaDelivery } from './replica-delivery.js';
import { encodeEventBatch } from './replica-delivery.js';
import type { ReminderStore, ReminderStoreKey, ReminderTransaction } from './store.js';
import { storeKeyString } from './store.js';

/** A lifecycle step's outcome, with its batch's log position when replicas are on (R52). */
export type Committed<T> = Outcome<T> & { readonly seq?: number };

export interface ReminderStepsParts {
  readonly store: ReminderStore;
  readonly limits: ReminderLimits;
  readonly buses: BusRegistry;
  /** Set with a change signal: events go through the store's log to the replica running the task (R52). */
  readonly replicas: ReplicaDelivery | undefined;
  readonly ownerResolver: OwnerResolver;
  /** The service's clock; the system clock when absent. */
  readonly now: (() => Date) | undefined;
}

/**
 * What every part of the service shares: how one lifecycle step (lifecycle.ts)
 * runs in a store transaction and how its events then reach the task's
 * stream, the scoping of store keys, and the clock.
 */
export class ReminderSteps {
  readonly store: ReminderStore;
  readonly limits: ReminderLimits;
  readonly buses: BusRegistry;
  readonly replicas: ReplicaDelivery | undefined;
  private readonly ownerResolver: OwnerResolver;
  private readonly clockMs: () => number;
  private readonly watchers = new Map<string, Set<() => void>>();

  constructor(parts: ReminderStepsParts) {
    this.store = parts.store;
    this.limits = parts.limits;
    this.buses = parts.buses;
    this.replicas = parts.replicas;
    this.ownerResolver = parts.ownerResolver;
    const now = parts.now;
    // Without a test clock, Date.now: no Date object per call on every rpc.
    this.clockMs = now === undefined ? Date.now : () => now().getTime();
  }

  /** The task's reminders are scoped exactly like the SDK's stores scope the task. */
  keyOf(context: ServerCallContext, taskId: string): ReminderStoreKey {
    return { tenant: context.tenant ?? '', owner: this.ownerResolver(context), taskId };
  }

  /**
   * Calls `wake` after every inject or cancel this replica commits on the
   * task, until the returned function is called: how a forwarding hears of
   * new reminders (R62).
   */
  watch(key: ReminderStoreKey, wake: () => void): () => void {
    const name = storeKeyString(key);
    let wakes = this.watchers.get(name);
    if (wakes === undefined) {
      wakes = new Set();
      this.watchers.set(name, wakes);
    }
    const entry = () => wake();
    wakes.add(entry);
    return () => {
      wakes.delete(entry);
      if (wakes.size === 0) this.watchers.delete(name);
    };
  }

  /** After an rpc committed a change to the task's reminders (see {@link watch}). */
  changed(key: ReminderStoreKey): void {
    if (this.watchers.size === 0) return;
    for (const wake of this.watchers.get(storeKeyString(key)) ?? []) wake();
  }

  nowMs(): number {
    return this.clockMs();
  }

  /** R35: past retention, records are gone even before a sweep deletes them. */
  expired(purgeAfterMs: number | undefined): boolean {
    return purgeAfterMs !== undefined && purgeAfterMs <= this.nowMs();
  }

  /**
   * One store transaction of a lifecycle step. With replicas its events are
   * appended to the task's log in the same transaction (R52), so they commit
   * (or roll back) with the records they describe.
   */
  commit<T>(
    key: ReminderStoreKey,
    step: (tx: ReminderTransaction) => Promise<Outcome<T>>,
  ): Promise<Committed<T>> {
    // Without replicas the step's outcome is the commit: no wrapper frame.
    if (this.replicas === undefined) return this.store.transact(key, step);
    return this.store.transact(key, async (tx) => {
      const outcome = await step(tx);
      if (outcome.events.length === 0) return outcome;
      if (tx.appendEvents === undefined) {
        throw new Error('the reminder store has an event log but its transactions cannot append');
      }
      return { ...outcome, seq: tx.appendEvents(encodeEventBatch(key.taskId, outcome.events)) };
    });
  }

  /**
   * R30, R52: a step's events go to the stream of the task's execution:
   * through the replica delivery when this replica follows the task (so
   * batches committed elsewhere keep their order), else straight onto the
   * local bus, if any. No bus here: the events stay listable (R32).
   * `silent`: recorded as delivered, never published (R28).
   */
  async deliver(
    key: ReminderStoreKey,
    bus: ExecutionEventBus | undefined,
    fallback: StatusFallback,
    outcome: Committed<unknown>,
    silent = false,
  ): Promise<void> {
    if (outcome.events.length === 0) return;
    if (this.replicas?.follows(key) && outcome.seq !== undefined) {
      await this.replicas.committed(key, outcome.seq, outcome.events, fallback, !silent);
      return;
    }
    if (bus !== undefined && !silent) {
      this.buses.publishBatch(bus, key.taskId, fallback, outcome.events);
    }
  }
}
