import { describe, expect, it } from 'vitest';
import { InMemoryReminderStore } from './in-memory-store.js';
import { reminderWrite } from './testing/reminder-write.js';

// ReminderStore.takeIdleTurn on the in-memory store: a turn boundary with
// nothing live, taken without a transaction, must number turns exactly as
// transactions do and never overtake an operation queued on the task (R19).

const key = { tenant: '', owner: 'alice', taskId: 't1' };

function gate() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

async function turnOf(store: InMemoryReminderStore): Promise<number | undefined> {
  return (await store.read(key))?.turn;
}

describe('InMemoryReminderStore.takeIdleTurn', () => {
  it('numbers the turns of a task it has never seen from 1, and transactions continue from there', async () => {
    const store = new InMemoryReminderStore();
    expect(store.takeIdleTurn(key)).toBe(1);
    expect(store.takeIdleTurn(key)).toBe(2);
    expect(await turnOf(store)).toBe(2);
    await store.transact(key, async (tx) => tx.setTurn(tx.turn + 1));
    expect(store.takeIdleTurn(key)).toBe(4);
    expect(await turnOf(store)).toBe(4);
  });

  it('declines while the task has a live reminder, and takes the turn again once it is final', async () => {
    const store = new InMemoryReminderStore();
    await store.transact(key, async (tx) => tx.put(reminderWrite('r')));
    expect(store.takeIdleTurn(key)).toBeUndefined();
    expect(await turnOf(store)).toBe(0);
    await store.transact(key, async (tx) => tx.put({ ...reminderWrite('r'), state: 'CANCELLED' }));
    expect(store.takeIdleTurn(key)).toBe(1);
  });

  it('declines once the task was ended (R27): the turn is not its to take', async () => {
    const store = new InMemoryReminderStore();
    store.takeIdleTurn(key);
    await store.transact(key, async (tx) =>
      tx.markEnded({ taskState: 'TASK_STATE_COMPLETED', endTimeMs: 1, purgeAfterMs: 2 }),
    );
    expect(store.takeIdleTurn(key)).toBeUndefined();
    expect(await turnOf(store)).toBe(1);
  });

  it('never takes the turn while a transaction on the task is queued or running', async () => {
    const store = new InMemoryReminderStore();
    const held = gate();
    const started = gate();
    const running = store.transact(key, async (tx) => {
      started.open();
      await held.opened;
      tx.put(reminderWrite('late'));
    });
    // Asked for, not started yet: still queued.
    expect(store.takeIdleTurn(key)).toBeUndefined();
    await started.opened;
    // Running, its reminder not written yet: the bucket is the transaction's.
    expect(store.takeIdleTurn(key)).toBeUndefined();
    held.open();
    await running;
    // The reminder it wrote is live now, so the boundary is a transaction's again.
    expect(store.takeIdleTurn(key)).toBeUndefined();
    expect(await turnOf(store)).toBe(0);
  });

  it('declines for a task whose transaction is queued behind another, and takes it once all settled', async () => {
    const store = new InMemoryReminderStore();
    const held = gate();
    const first = store.transact(key, async (tx) => {
      await held.opened;
      tx.setTurn(tx.turn + 1);
    });
    const second = store.transact(key, async (tx) => tx.setTurn(tx.turn + 1));
    expect(store.takeIdleTurn(key)).toBeUndefined();
    held.open();
    await first;
    expect(store.takeIdleTurn(key)).toBeUndefined();
    await second;
    expect(store.takeIdleTurn(key)).toBe(3);
  });

  it('continues from the rolled-back turn after a transaction that failed', async () => {
    const store = new InMemoryReminderStore();
    store.takeIdleTurn(key);
    await expect(
      store.transact(key, async (tx) => {
        tx.setTurn(tx.turn + 1);
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(store.takeIdleTurn(key)).toBe(2);
  });

  it('keeps other tasks apart: a transaction on one task does not make another decline', async () => {
    const store = new InMemoryReminderStore();
    const held = gate();
    const other = { ...key, taskId: 't2' };
    const running = store.transact(other, async (tx) => {
      await held.opened;
      tx.put(reminderWrite('r'));
    });
    expect(store.takeIdleTurn(key)).toBe(1);
    held.open();
    await running;
    expect(store.takeIdleTurn(other)).toBeUndefined();
  });
});
