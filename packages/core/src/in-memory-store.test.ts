import { describe, expect, it } from 'vitest';
import { InMemoryReminderStore } from './in-memory-store.js';
import type { StoredReminder } from './store.js';
import { reminderWrite } from './testing/reminder-write.js';

const key = { tenant: '', owner: 'alice', taskId: 't1' };

describe('InMemoryReminderStore', () => {
  it('keeps acceptance order and indexes liveness and dedupe keys', async () => {
    const store = new InMemoryReminderStore();
    await store.transact(key, async (tx) => {
      tx.put(reminderWrite('a', { dedupeKey: 'k' }));
      tx.put(reminderWrite('b'));
      tx.put(reminderWrite('c', { dedupeKey: 'k' }));
    });
    await store.transact(key, async (tx) => {
      tx.put(reminderWrite('a', { dedupeKey: 'k', state: 'ACTIVE' }));
      tx.put(reminderWrite('b', { state: 'CANCELLED' }));
    });
    await store.transact(key, async (tx) => {
      expect((await tx.live()).map((r) => r.id)).toEqual(['a', 'c']);
      expect(await tx.liveCount()).toBe(2);
      expect((await tx.liveWithDedupeKey('k')).map((r) => r.id)).toEqual(['a', 'c']);
      expect((await tx.get('b'))?.state).toBe('CANCELLED');
    });
  });

  it('R15: a displacement chain leaves its key one live id, and none once the last ends', async () => {
    const store = new InMemoryReminderStore();
    for (const [id, previous] of [
      ['a', undefined],
      ['b', 'a'],
      ['c', 'b'],
    ] as const) {
      await store.transact(key, async (tx) => {
        if (previous !== undefined) {
          tx.put(reminderWrite(previous, { dedupeKey: 'k', state: 'DISPLACED' }));
        }
        tx.put(reminderWrite(id, { dedupeKey: 'k' }));
        expect((await tx.liveWithDedupeKey('k')).map((r) => r.id)).toEqual([id]);
      });
    }
    await store.transact(key, async (tx) => {
      tx.put(reminderWrite('c', { dedupeKey: 'k', state: 'CANCELLED' }));
      expect(await tx.liveWithDedupeKey('k')).toEqual([]);
      // A key whose live ids went from two to one to none, through the same index.
      tx.put(reminderWrite('d', { dedupeKey: 'k' }));
      tx.put(reminderWrite('e', { dedupeKey: 'k' }));
      expect((await tx.liveWithDedupeKey('k')).map((r) => r.id)).toEqual(['d', 'e']);
      tx.put(reminderWrite('d', { dedupeKey: 'k', state: 'CANCELLED' }));
      expect((await tx.liveWithDedupeKey('k')).map((r) => r.id)).toEqual(['e']);
      tx.put(reminderWrite('e', { dedupeKey: 'k', state: 'CANCELLED' }));
      expect(await tx.liveWithDedupeKey('k')).toEqual([]);
      expect(await tx.purgeOldestFinal(0)).toEqual(['a', 'b', 'c', 'd', 'e']);
    });
  });

  it('rolls back every write of a transaction that throws', async () => {
    const store = new InMemoryReminderStore();
    await store.transact(key, async (tx) => {
      tx.put(reminderWrite('a'));
      tx.put(reminderWrite('b'));
    });
    await expect(
      store.transact(key, async (tx) => {
        tx.put(reminderWrite('a', { state: 'EXPIRED' }));
        tx.put(reminderWrite('z'));
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
    // The slow transaction waits on a gate, not a timer: released only after
    // the event loop has had a full turn to run the fast one (if it could).
    let release = (): void => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = store.transact(key, async (tx) => {
      order.push('slow:start');
      await gate;
      tx.setTurn(tx.turn + 1);
      order.push('slow:end');
    });
    const fast = store.transact(key, async (tx) => {
      order.push(`fast:${tx.turn}`);
    });
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await Promise.all([slow, fast]);
    expect(order).toEqual(['slow:start', 'slow:end', 'fast:1']);
  });

  it('keys by tenant, owner and task', async () => {
    const store = new InMemoryReminderStore();
    await store.transact(key, async (tx) => tx.put(reminderWrite('a')));
    expect(await store.read({ ...key, owner: 'bob' })).toBeUndefined();
    expect(await store.read({ ...key, tenant: 'acme' })).toBeUndefined();
    expect((await store.read(key))?.reminders.length).toBe(1);
  });

  it('R35: sweep deletes only ended tasks past their purge time', async () => {
    const store = new InMemoryReminderStore();
    const other = { ...key, taskId: 't2' };
    await store.transact(key, async (tx) => {
      tx.put(reminderWrite('a'));
      tx.markEnded({ taskState: 'TASK_STATE_COMPLETED', endTimeMs: 0, purgeAfterMs: 100 });
    });
    await store.transact(other, async (tx) => tx.put(reminderWrite('b')));
    expect(await store.sweep(99)).toBe(0);
    expect(await store.sweep(100)).toBe(1);
    expect(await store.read(key)).toBeUndefined();
    expect(await store.read(other)).toBeDefined();
  });

  it('R48, R49: inserts get the next acceptance sequence number, kept on replacement and never reused', async () => {
    const store = new InMemoryReminderStore();
    await store.transact(key, async (tx) => {
      tx.put(reminderWrite('a', { seq: 99 }));
      tx.put(reminderWrite('b'));
    });
    await store.transact(key, async (tx) => {
      tx.put(reminderWrite('a', { state: 'CANCELLED' }));
      expect(await tx.purgeOldestFinal(0)).toEqual(['a']);
      tx.put(reminderWrite('a'));
    });
    const snap = await store.read(key);
    expect(snap?.reminders.map((r) => [r.id, r.seq])).toEqual([
      ['b', 2],
      ['a', 3],
    ]);
  });

  it('R48: purges the oldest to become final, never a live record', async () => {
    const store = new InMemoryReminderStore();
    await store.transact(key, async (tx) => {
      for (const id of ['a', 'b', 'c', 'd', 'e']) tx.put(reminderWrite(id));
    });
    await store.transact(key, async (tx) => {
      // End order c, a, d: not acceptance order.
      tx.put(reminderWrite('c', { state: 'EXPIRED' }));
      tx.put(reminderWrite('a', { state: 'CANCELLED' }));
      tx.put(reminderWrite('d', { state: 'DISPLACED' }));
      expect(await tx.purgeOldestFinal(1)).toEqual(['c', 'a']);
      expect(await tx.purgeOldestFinal(1)).toEqual([]);
      expect(await tx.purgeOldestFinal(0)).toEqual(['d']);
      expect(await tx.get('a')).toBeUndefined();
      expect((await tx.live()).map((r) => r.id)).toEqual(['b', 'e']);
    });
    const snap = await store.read(key);
    expect(snap?.reminders.map((r) => r.id)).toEqual(['b', 'e']);
  });

  it('R48: a rolled-back purge restores the records, their order and the end order', async () => {
    const store = new InMemoryReminderStore();
    await store.transact(key, async (tx) => {
      for (const id of ['a', 'b', 'c']) tx.put(reminderWrite(id));
      tx.put(reminderWrite('b', { state: 'EXPIRED' }));
      tx.put(reminderWrite('a', { state: 'EXPIRED' }));
    });
    await expect(
      store.transact(key, async (tx) => {
        tx.put(reminderWrite('c', { state: 'CANCELLED' }));
        expect(await tx.purgeOldestFinal(0)).toEqual(['b', 'a', 'c']);
        throw new Error('nope');
      }),
    ).rejects.toThrow('nope');
    const snap = await store.read(key);
    expect(snap?.reminders.map((r) => [r.id, r.seq, r.state])).toEqual([
      ['a', 1, 'EXPIRED'],
      ['b', 2, 'EXPIRED'],
      ['c', 3, 'PENDING'],
    ]);
    await store.transact(key, async (tx) => {
      expect(await tx.purgeOldestFinal(1)).toEqual(['b']);
    });
  });

  it('R48: a rolled-back transaction of several ends and purges restores the end order', async () => {
    const store = new InMemoryReminderStore();
    const ids = Array.from({ length: 80 }, (_, i) => `r${i}`);
    await store.transact(key, async (tx) => {
      for (const id of ids) tx.put(reminderWrite(id));
      for (const id of ids.slice(0, 70)) tx.put(reminderWrite(id, { state: 'EXPIRED' }));
    });
    await expect(
      store.transact(key, async (tx) => {
        expect(await tx.purgeOldestFinal(10)).toEqual(ids.slice(0, 60));
        tx.put(reminderWrite('r70', { state: 'CANCELLED' }));
        expect(await tx.purgeOldestFinal(0)).toEqual(ids.slice(60, 71));
        tx.put(reminderWrite('r71', { state: 'CANCELLED' }));
        throw new Error('nope');
      }),
    ).rejects.toThrow('nope');
    const snap = await store.read(key);
    expect(snap?.reminders.map((r) => r.id)).toEqual(ids);
    await store.transact(key, async (tx) => {
      expect(await tx.purgeOldestFinal(68)).toEqual(['r0', 'r1']);
      tx.put(reminderWrite('r79', { state: 'CANCELLED' }));
      expect(await tx.purgeOldestFinal(-1)).toEqual([...ids.slice(2, 70), 'r79']);
    });
  });

  it('R49: pages by acceptance sequence, with a live-only view', async () => {
    const store = new InMemoryReminderStore();
    await store.transact(key, async (tx) => {
      for (const id of ['a', 'b', 'c', 'd']) tx.put(reminderWrite(id));
      tx.put(reminderWrite('b', { state: 'EXPIRED' }));
    });
    const ids = (p: { reminders: readonly { id: string }[] } | undefined) =>
      p?.reminders.map((r) => r.id);
    const first = await store.page(key, { afterSeq: 0, limit: 2, liveOnly: false });
    expect([ids(first), first?.more]).toEqual([['a', 'b'], true]);
    const last = await store.page(key, { afterSeq: 2, limit: 2, liveOnly: false });
    expect([ids(last), last?.more]).toEqual([['c', 'd'], false]);
    const live = await store.page(key, { afterSeq: 1, limit: 5, liveOnly: true });
    expect([ids(live), live?.more]).toEqual([['c', 'd'], false]);
    expect(
      await store.page({ ...key, taskId: 'none' }, { afterSeq: 0, limit: 1, liveOnly: false }),
    ).toBeUndefined();
  });

  it('refuses to turn a final record live again', async () => {
    const store = new InMemoryReminderStore();
    await store.transact(key, async (tx) => tx.put(reminderWrite('a', { state: 'EXPIRED' })));
    await expect(store.transact(key, async (tx) => tx.put(reminderWrite('a')))).rejects.toThrow(
      'final',
    );
  });

  it('stores a new record as a copy of every field, its metadata not shared with the caller', async () => {
    // Required<>: a field added to StoredReminder fails to compile here until it is set.
    const every: Required<StoredReminder> = {
      id: 'a',
      body: 'b',
      dedupeKey: 'k',
      ttlTurns: 3,
      roleHint: 'system',
      source: 'monitor',
      metadata: { nested: { n: 1 } },
      provenance: {
        $typeName: 'a2a.reminders.v1.ReminderProvenance',
        hops: [],
      },
      seq: 1,
      state: 'DISPLACED',
      createTimeMs: 10,
      endTimeMs: 20,
      firstTurn: 2,
      turnsSurfaced: 1,
      displacedBy: 'z',
      acceptance: { displacedReminderIds: ['y'], taskState: 'TASK_STATE_WORKING' },
      forwards: [{ taskId: 'sub', reminderId: 'a-1', state: 'PENDING', updateTimeMs: 15 }],
    };
    const store = new InMemoryReminderStore();
    await store.transact(key, async (tx) => tx.put(every));
    const stored = (await store.read(key))?.reminders[0];
    expect(stored).toStrictEqual(every);
    expect(stored?.metadata).not.toBe(every.metadata);
    expect(stored?.acceptance).not.toBe(every.acceptance);
  });
});
