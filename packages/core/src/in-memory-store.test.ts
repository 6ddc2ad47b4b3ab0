import { describe, expect, it } from 'vitest';
import { InMemoryReminderStore } from './in-memory-store.js';
import type { StoredReminder } from './store.js';

const key = { tenant: '', owner: 'alice', taskId: 't1' };

function reminder(id: string, extra: Partial<StoredReminder> = {}): StoredReminder {
  return {
    id,
    body: 'b',
    dedupeKey: '',
    ttlTurns: 1,
    roleHint: '',
    source: '',
    state: 'PENDING',
    createTimeMs: 0,
    turnsSurfaced: 0,
    acceptance: { displacedReminderIds: [], taskState: 'TASK_STATE_WORKING' },
    ...extra,
  };
}

describe('InMemoryReminderStore', () => {
  it('keeps acceptance order and indexes liveness and dedupe keys', async () => {
    const store = new InMemoryReminderStore();
    await store.transact(key, async (tx) => {
      tx.put(reminder('a', { dedupeKey: 'k' }));
      tx.put(reminder('b'));
      tx.put(reminder('c', { dedupeKey: 'k' }));
    });
    await store.transact(key, async (tx) => {
      tx.put(reminder('a', { dedupeKey: 'k', state: 'ACTIVE' }));
      tx.put(reminder('b', { state: 'CANCELLED' }));
    });
    await store.transact(key, async (tx) => {
      expect((await tx.live()).map((r) => r.id)).toEqual(['a', 'c']);
      expect(await tx.liveCount()).toBe(2);
      expect((await tx.liveWithDedupeKey('k')).map((r) => r.id)).toEqual(['a', 'c']);
      expect((await tx.get('b'))?.state).toBe('CANCELLED');
    });
  });

  it('rolls back every write of a transaction that throws', async () => {
    const store = new InMemoryReminderStore();
    await store.transact(key, async (tx) => {
      tx.put(reminder('a'));
      tx.put(reminder('b'));
    });
    await expect(
      store.transact(key, async (tx) => {
        tx.put(reminder('a', { state: 'EXPIRED' }));
        tx.put(reminder('z'));
        tx.setTurn(9);
        tx.markEnded({ taskState: 'TASK_STATE_FAILED', endTimeMs: 0, purgeAfterMs: 0 });
        throw new Error('nope');
      }),
    ).rejects.toThrow('nope');
    const snap = await store.read(key);
    expect(snap?.turn).toBe(0);
    expect(snap?.ended).toBeUndefined();
    expect(snap?.reminders.map((r) => [r.id, r.state])).toEqual([
      ['a', 'PENDING'],
      ['b', 'PENDING'],
    ]);
    await store.transact(key, async (tx) => {
      expect((await tx.live()).map((r) => r.id)).toEqual(['a', 'b']);
    });
    expect(await store.sweep(1)).toBe(0);
  });

  it('serializes transactions on one task', async () => {
    const store = new InMemoryReminderStore();
    const order: string[] = [];
    const slow = store.transact(key, async (tx) => {
      order.push('slow:start');
      await new Promise((r) => setTimeout(r, 5));
      tx.setTurn(tx.turn + 1);
      order.push('slow:end');
    });
    const fast = store.transact(key, async (tx) => {
      order.push(`fast:${tx.turn}`);
    });
    await Promise.all([slow, fast]);
    expect(order).toEqual(['slow:start', 'slow:end', 'fast:1']);
  });

  it('keys by tenant, owner and task', async () => {
    const store = new InMemoryReminderStore();
    await store.transact(key, async (tx) => tx.put(reminder('a')));
    expect(await store.read({ ...key, owner: 'bob' })).toBeUndefined();
    expect(await store.read({ ...key, tenant: 'acme' })).toBeUndefined();
    expect((await store.read(key))?.reminders.length).toBe(1);
  });

  it('R35: sweep deletes only ended tasks past their purge time', async () => {
    const store = new InMemoryReminderStore();
    const other = { ...key, taskId: 't2' };
    await store.transact(key, async (tx) => {
      tx.put(reminder('a'));
      tx.markEnded({ taskState: 'TASK_STATE_COMPLETED', endTimeMs: 0, purgeAfterMs: 100 });
    });
    await store.transact(other, async (tx) => tx.put(reminder('b')));
    expect(await store.sweep(99)).toBe(0);
    expect(await store.sweep(100)).toBe(1);
    expect(await store.read(key)).toBeUndefined();
    expect(await store.read(other)).toBeDefined();
  });
});
