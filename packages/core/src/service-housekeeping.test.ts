import { TaskState } from '@a2a-js/sdk';
import { ReminderState } from '@a2a-reminders/proto';
import { describe, expect, it, vi } from 'vitest';
import { InMemoryReminderStore } from './in-memory-store.js';
import type { ReminderStore } from './store.js';
import { harness } from './testing/harness.js';

/** An in-memory store that counts transactions and can be made to fail its sweeps. */
class CountingStore extends InMemoryReminderStore {
  transactions = 0;
  failSweeps = false;
  override transact: ReminderStore['transact'] = (key, mutate) => {
    this.transactions += 1;
    return super.transact(key, mutate);
  };
  override sweep = async (nowMs: number): Promise<number> => {
    if (this.failSweeps) throw new Error('database is locked');
    return super.sweep(nowMs);
  };
}

describe('R29, R35: housekeeping stays out of the caller’s way', () => {
  it('R29: List and Cancel of a task whose reminders were ended are read-only', async () => {
    const store = new CountingStore();
    const h = harness({ store });
    await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    await h.inject('t1', { id: 'a', body: 'x' });
    await h.saveTask('t1', TaskState.TASK_STATE_CANCELED);
    // The first call after the task ended ends its reminders (R29).
    expect((await h.list('t1')).reminders.map((r) => r.state)).toEqual([ReminderState.DROPPED]);
    const after = store.transactions;
    await h.list('t1');
    expect((await h.cancel('t1', 'a').catch((e) => e)).code).toBe('REMINDER_NOT_LIVE');
    expect(store.transactions - after).toBe(1); // the cancel's own transaction, nothing for R29
    await h.list('t1');
    expect(store.transactions - after).toBe(1);
  });

  it('R35: listing a swept task does not bring its records back for another retention period', async () => {
    const store = new CountingStore();
    const h = harness({ store, limits: { retentionMs: 10_000 } });
    await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    await h.inject('t1', { id: 'a', body: 'x' });
    await h.saveTask('t1', TaskState.TASK_STATE_COMPLETED);
    await h.list('t1');
    h.clock.advance(60_000);
    await h.saveTask('t2', TaskState.TASK_STATE_WORKING);
    await h.list('t2'); // any rpc may trigger the lazy sweep
    expect(await store.read({ tenant: '', owner: 'unknown', taskId: 't1' })).toBeUndefined();
    expect((await h.list('t1')).reminders).toEqual([]);
    expect(await store.read({ tenant: '', owner: 'unknown', taskId: 't1' })).toBeUndefined();
  });

  it('R35: a sweep that fails is logged and retried later, never answered to the caller', async () => {
    const store = new CountingStore();
    const h = harness({ store, limits: { retentionMs: 10_000 } });
    await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    store.failSweeps = true;
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const answer = await h.inject('t1', { id: 'a', body: 'x' });
      expect(answer.record?.reminder?.id).toBe('a');
      expect(errors).toHaveBeenCalledWith(
        'task reminders: sweeping ended tasks failed',
        expect.any(Error),
      );
    } finally {
      errors.mockRestore();
    }
  });
});
