import type { ReminderStore, ReminderStoreKey, ReminderTransaction } from '@a2a-reminders/core';
import { InMemoryReminderStore } from '@a2a-reminders/core';
import type { Deferred } from './wait.js';
import { deferred, within } from './wait.js';

/** A transaction the gate holds: it has started and made its first read. */
export interface HeldTransaction {
  /** Which transaction (1-based, in call order) is held. */
  readonly n: number;
  /** Lets the held transaction continue. */
  release(): void;
}

/**
 * A {@link ReminderStore} that can hold one transaction in the middle, so a
 * test can make two operations provably interleave (R19): `holdNext()` makes
 * the next transaction stop right after its first read (it has started and
 * holds the task's lock), and `untilCalls(n)` waits until `n` transactions
 * have been asked for, i.e. until a racing operation has reached the store.
 * `log` records the order of calls, starts and ends.
 */
export class GatedStore implements ReminderStore {
  readonly log: string[] = [];

  private calls = 0;
  private hold: Deferred<HeldTransaction> | undefined;
  private readonly callWaiters: Array<{ n: number; done: () => void }> = [];

  /** Gates `inner` (the suite's store: in memory, SQLite or PostgreSQL). */
  constructor(private readonly inner: ReminderStore = new InMemoryReminderStore()) {}

  /** Resolves once the next transaction has started and made its first read; it then waits. */
  holdNext(): Promise<HeldTransaction> {
    this.hold = deferred<HeldTransaction>();
    return within(this.hold.promise, 'a transaction to start');
  }

  /** How many transactions have been asked for so far. */
  transactions(): number {
    return this.calls;
  }

  /** Resolves once `n` transactions in all have been asked for. */
  untilCalls(n: number): Promise<void> {
    if (this.calls >= n) return Promise.resolve();
    return within(
      new Promise<void>((done) => this.callWaiters.push({ n, done })),
      `transaction call ${n}`,
    );
  }

  transact<T>(key: ReminderStoreKey, mutate: (tx: ReminderTransaction) => Promise<T>): Promise<T> {
    this.calls += 1;
    const n = this.calls;
    this.log.push(`call ${n}`);
    for (const w of this.callWaiters.filter((x) => this.calls >= x.n)) {
      this.callWaiters.splice(this.callWaiters.indexOf(w), 1);
      w.done();
    }
    let hold = this.hold;
    this.hold = undefined;
    return this.inner.transact(key, async (tx) => {
      this.log.push(`start ${n}`);
      // A store may run the body again after a failure (R69); only its first attempt is held.
      const gate = hold;
      hold = undefined;
      try {
        return await mutate(gate === undefined ? tx : holding(tx, n, gate));
      } finally {
        this.log.push(`end ${n}`);
      }
    });
  }

  read(key: ReminderStoreKey) {
    return this.inner.read(key);
  }

  page(key: ReminderStoreKey, query: Parameters<ReminderStore['page']>[1]) {
    return this.inner.page(key, query);
  }

  sweep(nowMs: number) {
    return this.inner.sweep(nowMs);
  }
}

/** The transaction's reads: the gate holds the first one that completes. */
const READS = new Set<PropertyKey>(['get', 'live', 'liveCount', 'liveWithDedupeKey']);

/** `tx` whose first read completes, then waits for the test's release. */
function holding(
  tx: ReminderTransaction,
  n: number,
  hold: Deferred<HeldTransaction>,
): ReminderTransaction {
  let held = false;
  const gate = async (read: Promise<unknown>): Promise<unknown> => {
    const value = await read;
    if (!held) {
      held = true;
      const released = deferred();
      hold.resolve({ n, release: () => released.resolve() });
      await released.promise;
    }
    return value;
  };
  // A Proxy, so the gate keeps working when the transaction interface grows.
  return new Proxy(tx, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      const method = (...args: unknown[]): unknown => value.apply(target, args);
      return READS.has(prop)
        ? (...args: unknown[]) => gate(method(...args) as Promise<unknown>)
        : method;
    },
  });
}
