import { TaskState } from '@a2a-js/sdk';
import { ReminderState } from '@a2a-reminders/proto';
import { describe, expect, it, vi } from 'vitest';
import { InMemoryReminderStore } from './in-memory-store.js';
import type { ReminderStoreKey, ReminderTransaction } from './store.js';
import { harness } from './testing/harness.js';

// A boundary with nothing live is taken without a store transaction
// (ReminderStore.takeIdleTurn); every other one is takeTurn in a transaction.
// Both must number turns as one sequence and keep R19: an inject racing a
// boundary lands in exactly one turn.

/** An in-memory store that can hold its next transaction before it starts its step. */
class HoldingStore extends InMemoryReminderStore {
  private hold: { started: () => void; released: Promise<void> } | undefined;

  /** Holds the next transaction; resolves once it is running (it holds the task's lock). */
  holdNext(): { running: Promise<void>; release: () => void } {
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const running = new Promise<void>((started) => {
      this.hold = { started, released };
    });
    return { running, release };
  }

  override transact<T>(
    key: ReminderStoreKey,
    mutate: (tx: ReminderTransaction) => Promise<T>,
  ): Promise<T> {
    const hold = this.hold;
    this.hold = undefined;
    return super.transact(key, async (tx) => {
      if (hold !== undefined) {
        hold.started();
        await hold.released;
      }
      return mutate(tx);
    });
  }
}

async function workingTask() {
  const store = new HoldingStore();
  const h = harness({ store });
  const task = await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
  const sink = h.openBus('t1');
  const transactions = vi.spyOn(store, 'transact');
  const turn = () => h.service.beginTurn(h.requestContext(task), sink.bus);
  /** A boundary and whether it ran a store transaction. */
  const observedTurn = async () => {
    const before = transactions.mock.calls.length;
    const t = await turn();
    return { ...t, transacted: transactions.mock.calls.length > before };
  };
  return { h, task, sink, store, turn, observedTurn };
}

describe('turn boundaries with nothing live', () => {
  it('R19: turn numbers run on across boundaries taken with and without a transaction', async () => {
    const { h, observedTurn } = await workingTask();
    const seen: Array<[number, boolean, string[]]> = [];
    const record = async () => {
      const t = await observedTurn();
      seen.push([t.turn, t.transacted, t.reminders.map((r) => r.id)]);
    };
    await record();
    await record();
    await h.inject('t1', { id: 'r', body: 'x', ttlTurns: 2 });
    await record();
    await record();
    await record(); // r expires here: it was live when the boundary began
    await record();
    expect(seen).toEqual([
      [1, false, []],
      [2, false, []],
      [3, true, ['r']],
      [4, true, ['r']],
      [5, true, []],
      [6, false, []],
    ]);
    const expired = (await h.list('t1')).reminders[0];
    expect([expired?.state, expired?.firstTurn]).toEqual([ReminderState.EXPIRED, 3]);
  });

  it('R19: the first boundary of a task without reminders is turn 1, and publishes nothing', async () => {
    const { sink, observedTurn } = await workingTask();
    const t = await observedTurn();
    expect([t.turn, t.transacted, t.reminders]).toEqual([1, false, []]);
    expect(t.taskId).toBe('t1');
    expect(sink.events).toEqual([]);
  });

  it('R19: an inject whose transaction is running when the boundary starts lands in that turn, once', async () => {
    const { h, store, turn, observedTurn } = await workingTask();
    await turn(); // 1, without a transaction
    const held = store.holdNext();
    const injected = h.inject('t1', { id: 'early', body: 'x' });
    await held.running;
    const boundary = turn();
    held.release();
    await injected;
    const t2 = await boundary;
    expect([t2.turn, t2.reminders.map((r) => [r.id, r.firstSurfacing])]).toEqual([
      2,
      [['early', true]],
    ]);
    const t3 = await observedTurn(); // early expires (ttl 1): not surfaced again
    expect([t3.turn, t3.transacted, t3.reminders]).toEqual([3, true, []]);
    const t4 = await observedTurn();
    expect([t4.turn, t4.transacted]).toEqual([4, false]);
  });

  it('R19: an inject that reaches the store after the boundary started lands in the next turn, once', async () => {
    const { h, turn, observedTurn } = await workingTask();
    await turn(); // 1
    const boundary = observedTurn();
    const injected = h.inject('t1', { id: 'late', body: 'x' });
    const [t2] = await Promise.all([boundary, injected]);
    expect([t2.turn, t2.transacted, t2.reminders]).toEqual([2, false, []]);
    const t3 = await turn();
    expect([t3.turn, t3.reminders.map((r) => [r.id, r.firstSurfacing])]).toEqual([
      3,
      [['late', true]],
    ]);
    const t4 = await turn();
    expect([t4.turn, t4.reminders]).toEqual([4, []]);
  });

  it('R23: the boundary after the last live reminder was cancelled needs no transaction', async () => {
    const { h, observedTurn } = await workingTask();
    await h.inject('t1', { id: 'r', body: 'x', ttlTurns: 5 });
    expect((await observedTurn()).transacted).toBe(true); // 1
    await h.cancel('t1', 'r');
    const t = await observedTurn();
    expect([t.turn, t.transacted, t.reminders]).toEqual([2, false, []]);
  });

  it('R16: a displaced reminder is not live; with its successor cancelled the next boundary needs no transaction', async () => {
    const { h, observedTurn } = await workingTask();
    await h.inject('t1', { id: 'a', body: 'x', dedupeKey: 'k', ttlTurns: 5 });
    await h.inject('t1', { id: 'b', body: 'y', dedupeKey: 'k', ttlTurns: 5 });
    const t1 = await observedTurn();
    expect([t1.turn, t1.transacted, t1.reminders.map((r) => r.id)]).toEqual([1, true, ['b']]);
    await h.cancel('t1', 'b');
    const t2 = await observedTurn();
    expect([t2.turn, t2.transacted, t2.reminders]).toEqual([2, false, []]);
  });

  it('R27: once the task ended, a boundary takes no turn', async () => {
    const { h, task, sink, turn, observedTurn } = await workingTask();
    await turn(); // 1
    await h.service.endTask(h.requestContext(task), sink.bus, TaskState.TASK_STATE_COMPLETED);
    const t = await observedTurn();
    expect([t.turn, t.transacted, t.reminders]).toEqual([1, true, []]);
  });
});
