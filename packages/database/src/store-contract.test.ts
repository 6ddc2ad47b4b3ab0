import type { ReminderStore, ReminderWrite } from '@a2a-reminders/core';
import { provenanceFromText } from '@a2a-reminders/core';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openReminderDatabase } from './connect.js';
import { DatabaseReminderStore } from './database-reminder-store.js';
import type { StoreKind } from './testing/store-fixture.js';
import { STORE_KINDS, StoreFixture } from './testing/store-fixture.js';

// The ReminderStore contract (packages/core/src/store.ts), one suite run on
// the in-memory reference store and on each SQL engine: same cases, same
// expectations, so the SQL store is held to the reference's behaviour.

const key = { tenant: '', owner: 'alice', taskId: 't1' };

function reminder(id: string, extra: Partial<ReminderWrite> = {}): ReminderWrite {
  return {
    id,
    body: `body of ${id}`,
    dedupeKey: '',
    ttlTurns: 1,
    roleHint: '',
    source: '',
    state: 'PENDING',
    createTimeMs: 1_767_225_600_000,
    turnsSurfaced: 0,
    acceptance: { displacedReminderIds: [], taskState: 'TASK_STATE_WORKING' },
    ...extra,
  };
}

async function ids(store: ReminderStore, k = key): Promise<string[]> {
  return ((await store.read(k))?.reminders ?? []).map((r) => r.id);
}

/** How long a wait for a lock may take before the test calls it a hang. */
const HANG_GUARD_MS = 60_000;

/**
 * Returns once the second of two transactions on one task, started while the
 * first holds the task's lock, is observed blocked, or once `ran()` (its
 * body ran: the store failed to serialise them). Every observation is of
 * state, none of elapsed time.
 *
 * - All stores: every microtask queued so far runs first. The in-memory
 *   store and Kysely's SQLite connection hand over by promise alone, so an
 *   unblocked body has run by then.
 * - PostgreSQL: another connection polls `pg_stat_activity` until a backend
 *   of the test's database waits for a lock on the task row (`FOR UPDATE`).
 * - SQLite: the first transaction must hold the database's write lock (so a
 *   writer in any other process waits): another connection with no busy
 *   timeout fails to take it with SQLITE_BUSY.
 */
async function fastBlockedOrRan(
  kind: StoreKind,
  fixture: StoreFixture,
  ran: () => boolean,
): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  if (ran() || kind === 'memory') return;
  const url = fixture.url;
  if (url === undefined) throw new Error('no database URL');
  if (kind === 'sqlite') {
    const probe = await openReminderDatabase(url, { busyTimeoutMs: 0 });
    try {
      const attempt = await sql`begin immediate`.execute(probe).then(
        () => 'took the write lock',
        (error: { code?: string }) => error.code,
      );
      if (attempt === 'took the write lock') await sql`rollback`.execute(probe);
      expect(attempt, 'another writer of the database is blocked').toBe('SQLITE_BUSY');
    } finally {
      await probe.destroy();
    }
    return;
  }
  const probe = await openReminderDatabase(url, { poolSize: 1 });
  try {
    const deadline = Date.now() + HANG_GUARD_MS;
    for (;;) {
      if (ran()) return;
      const { rows } = await sql<{ waiting: number }>`
        select count(*)::int as waiting from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid()
          and wait_event_type = 'Lock' and query like '%a2a_reminder_tasks%for update%'
      `.execute(probe);
      if ((rows[0]?.waiting ?? 0) > 0) return;
      if (Date.now() > deadline) {
        throw new Error(
          `the second transaction neither waited for the lock nor ran in ${HANG_GUARD_MS} ms`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    await probe.destroy();
  }
}

describe.each<StoreKind>(STORE_KINDS)('ReminderStore contract on %s', (kind) => {
  const fixture = new StoreFixture(kind);
  let store: ReminderStore;
  beforeAll(() => fixture.open());
  afterAll(() => fixture.close());
  beforeEach(async () => {
    store = await fixture.reset();
  });

  it('keeps acceptance order and finds live records and dedupe keys', async () => {
    await store.transact(key, async (tx) => {
      tx.put(reminder('a', { dedupeKey: 'k' }));
      tx.put(reminder('b'));
      tx.put(reminder('c', { dedupeKey: 'k' }));
    });
    await store.transact(key, async (tx) => {
      const a = await tx.get('a');
      if (a === undefined) throw new Error('a is missing');
      tx.put({ ...a, state: 'ACTIVE', turnsSurfaced: 1, firstTurn: 1 });
      tx.put(reminder('b', { state: 'CANCELLED', endTimeMs: 5 }));
    });
    await store.transact(key, async (tx) => {
      expect((await tx.live()).map((r) => r.id)).toEqual(['a', 'c']);
      expect(await tx.liveCount()).toBe(2);
      expect((await tx.liveWithDedupeKey('k')).map((r) => r.id)).toEqual(['a', 'c']);
      expect(await tx.liveWithDedupeKey('other')).toEqual([]);
      expect((await tx.get('b'))?.state).toBe('CANCELLED');
      expect(await tx.get('zz')).toBeUndefined();
    });
    expect(await ids(store)).toEqual(['a', 'b', 'c']);
  });

  it('keeps every field of a record, metadata, acceptance, provenance and forwards included', async () => {
    const full = reminder('full', {
      body: 'Line one\n\twith a tab, ünïcödé and an emoji 🎉',
      dedupeKey: 'upstream:pr-1234',
      ttlTurns: 3,
      roleHint: 'system',
      source: 'coordinator-agent',
      metadata: { pr: 1234, nested: { list: [1, 'two', null, true, { deep: -0.5 }] }, empty: {} },
      acceptance: { displacedReminderIds: ['x', 'y'], taskState: 'TASK_STATE_INPUT_REQUIRED' },
      provenance: provenanceFromText(
        '{"hops":[{"taskId":"parent-1","reminderId":"ci","source":"ops"},{"taskId":"parent-2","reminderId":"ci"}]}',
      ),
      forwards: [{ taskId: 'sub-1', reminderId: 'full', state: 'PENDING', updateTimeMs: 5 }],
    });
    await store.transact(key, async (tx) => tx.put(full));
    const ended = {
      ...full,
      state: 'DISPLACED' as const,
      endTimeMs: 9_007_199_254_740,
      displacedBy: 'next',
      firstTurn: 7,
      turnsSurfaced: 2,
    };
    await store.transact(key, async (tx) => tx.put(ended));
    expect((await store.read(key))?.reminders[0]).toEqual({ ...ended, seq: 1 });
    // R63: a final record's forwards still change.
    const reported = {
      ...ended,
      forwards: [
        { taskId: 'sub-1', reminderId: 'full', state: 'EXPIRED' as const, updateTimeMs: 6 },
        { taskId: 'sub-2', reminderId: 'full', refusal: 'FORWARD_LOOP', updateTimeMs: 7 },
      ],
    };
    await store.transact(key, async (tx) => tx.put(reported));
    expect((await store.read(key))?.reminders[0]).toEqual({ ...reported, seq: 1 });
  });

  it('reads its own writes inside a transaction, a replacement without a prior read included', async () => {
    await store.transact(key, async (tx) => tx.put(reminder('a')));
    await store.transact(key, async (tx) => {
      // No get() first: the store must find the stored record itself.
      tx.put(reminder('a', { state: 'ACTIVE', turnsSurfaced: 1, firstTurn: 1 }));
      tx.put(reminder('b'));
      expect((await tx.get('a'))?.state).toBe('ACTIVE');
      expect((await tx.get('a'))?.seq).toBe(1);
      expect((await tx.get('b'))?.seq).toBe(2);
      expect((await tx.live()).map((r) => r.id)).toEqual(['a', 'b']);
      expect(await tx.liveCount()).toBe(2);
    });
  });

  it('rolls back every write of a transaction that throws', async () => {
    await store.transact(key, async (tx) => {
      tx.put(reminder('a'));
      tx.put(reminder('b'));
      tx.put(reminder('f', { state: 'CANCELLED', endTimeMs: 1 }));
    });
    await expect(
      store.transact(key, async (tx) => {
        tx.put(reminder('a', { state: 'EXPIRED', endTimeMs: 2 }));
        tx.put(reminder('z'));
        expect(await tx.purgeOldestFinal(0)).toEqual(['f', 'a']);
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
      ['f', 'CANCELLED'],
    ]);
    await store.transact(key, async (tx) => {
      expect((await tx.live()).map((r) => r.id)).toEqual(['a', 'b']);
      expect(await tx.liveCount()).toBe(2);
      // The rolled-back insert of z did not use up a sequence number.
      tx.put(reminder('c'));
      expect((await tx.get('c'))?.seq).toBe(4);
    });
    expect(await store.sweep(1)).toBe(0);
  });

  it('refuses to turn a final record live again, and rolls the transaction back', async () => {
    await store.transact(key, async (tx) =>
      tx.put(reminder('a', { state: 'EXPIRED', endTimeMs: 1 })),
    );
    await expect(
      store.transact(key, async (tx) => {
        tx.setTurn(4);
        tx.put(reminder('a', { state: 'ACTIVE' }));
        await tx.liveCount();
      }),
    ).rejects.toThrow(/final/);
    const snap = await store.read(key);
    expect(snap?.turn).toBe(0);
    expect(snap?.reminders.map((r) => r.state)).toEqual(['EXPIRED']);
  });

  it('serializes transactions on one task', async () => {
    await store.transact(key, async (tx) => tx.setTurn(0));
    const order: string[] = [];
    let release = (): void => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let slowStarted = (): void => {};
    const started = new Promise<void>((resolve) => {
      slowStarted = resolve;
    });
    const slow = store.transact(key, async (tx) => {
      order.push('slow:start');
      slowStarted();
      await gate;
      tx.setTurn(tx.turn + 1);
      order.push('slow:end');
    });
    await started;
    // Through another store instance: the database's lock must serialize
    // them, not the first store's own in-process queue.
    const fast = fixture.twin().transact(key, async (tx) => {
      order.push(`fast:${tx.turn}`);
    });
    // Release the slow transaction only once the fast one is seen waiting for
    // it, or seen running (then the order below fails): no sleep, so the
    // verdict never depends on the machine's speed.
    try {
      await fastBlockedOrRan(kind, fixture, () => order.some((o) => o.startsWith('fast:')));
    } finally {
      release();
    }
    await Promise.all([slow, fast]);
    expect(order).toEqual(['slow:start', 'slow:end', 'fast:1']);
  });

  it('queues a burst on one task in process, so it never takes every pooled connection', async () => {
    if (kind !== 'postgres') return;
    const db = await openReminderDatabase(fixture.url ?? '', { poolSize: 2 });
    try {
      const narrow = new DatabaseReminderStore(db);
      let release = (): void => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      let holding = (): void => {};
      const held = new Promise<void>((resolve) => {
        holding = resolve;
      });
      const first = narrow.transact(key, async () => {
        holding();
        await gate;
      });
      await held;
      // Without the queue, one of these takes the pool's last connection to wait on the row lock.
      const burst = Array.from({ length: 5 }, () => narrow.transact(key, async () => {}));
      try {
        // Another task still gets a connection while the first task's lock is held.
        const other = narrow.transact({ ...key, taskId: 't-other' }, async (tx) => tx.setTurn(1));
        const hang = new Promise<'hung'>((resolve) =>
          setTimeout(() => resolve('hung'), HANG_GUARD_MS).unref(),
        );
        expect(await Promise.race([other.then(() => 'done'), hang])).toBe('done');
      } finally {
        release();
      }
      await Promise.all([first, ...burst]);
    } finally {
      await db.destroy();
    }
  });

  it('keys by tenant, owner and task', async () => {
    await store.transact(key, async (tx) => tx.put(reminder('a')));
    expect(await store.read({ ...key, owner: 'bob' })).toBeUndefined();
    expect(await store.read({ ...key, tenant: 'acme' })).toBeUndefined();
    expect(await store.read({ ...key, taskId: 't2' })).toBeUndefined();
    expect(
      await store.page({ ...key, owner: 'bob' }, { afterSeq: 0, limit: 5, liveOnly: false }),
    ).toBeUndefined();
    await store.transact({ ...key, owner: 'bob' }, async (tx) => {
      expect(await tx.get('a')).toBeUndefined();
      tx.put(reminder('a', { body: "bob's" }));
    });
    expect((await store.read(key))?.reminders[0]?.body).toBe('body of a');
    expect((await store.read({ ...key, owner: 'bob' }))?.reminders[0]?.body).toBe("bob's");
  });

  it('R35: sweep deletes only ended tasks past their purge time', async () => {
    const other = { ...key, taskId: 't2' };
    await store.transact(key, async (tx) => {
      tx.put(reminder('a'));
      tx.markEnded({ taskState: 'TASK_STATE_COMPLETED', endTimeMs: 0, purgeAfterMs: 100 });
    });
    await store.transact(other, async (tx) => tx.put(reminder('b')));
    expect(await store.sweep(99)).toBe(0);
    expect((await store.read(key))?.ended).toEqual({
      taskState: 'TASK_STATE_COMPLETED',
      endTimeMs: 0,
      purgeAfterMs: 100,
    });
    expect(await store.sweep(100)).toBe(1);
    expect(await store.read(key)).toBeUndefined();
    expect(await ids(store, other)).toEqual(['b']);
  });

  it('R35: a sweep of many ended tasks deletes them all', async () => {
    for (let i = 0; i < 12; i += 1) {
      await store.transact({ ...key, taskId: `ended-${i}` }, async (tx) => {
        tx.put(reminder('a'));
        tx.markEnded({ taskState: 'TASK_STATE_CANCELED', endTimeMs: 0, purgeAfterMs: i });
      });
    }
    expect(await store.sweep(5)).toBe(6);
    expect(await store.sweep(100)).toBe(6);
    expect(await store.read({ ...key, taskId: 'ended-11' })).toBeUndefined();
  });

  it('R48, R49: inserts get the next sequence number, kept on replacement and never reused', async () => {
    await store.transact(key, async (tx) => {
      tx.put(reminder('a', { seq: 99 }));
      tx.put(reminder('b'));
    });
    await store.transact(key, async (tx) => {
      tx.put(reminder('a', { state: 'CANCELLED', endTimeMs: 1, seq: 7 }));
      tx.put(reminder('b', { state: 'CANCELLED', endTimeMs: 1 }));
      expect(await tx.purgeOldestFinal(0)).toEqual(['a', 'b']);
      tx.put(reminder('c'));
    });
    const snap = await store.read(key);
    expect(snap?.reminders.map((r) => [r.id, r.seq])).toEqual([['c', 3]]);
    // A purged id comes back as a new record with a new number.
    await store.transact(key, async (tx) => tx.put(reminder('a')));
    expect((await store.read(key))?.reminders.map((r) => [r.id, r.seq])).toEqual([
      ['c', 3],
      ['a', 4],
    ]);
  });

  it('R48: purges the oldest to become final, never a live record', async () => {
    await store.transact(key, async (tx) => {
      for (const id of ['a', 'b', 'c', 'd', 'e']) tx.put(reminder(id));
    });
    // Final in the order d, b, e (not acceptance order).
    for (const id of ['d', 'b', 'e']) {
      await store.transact(key, async (tx) =>
        tx.put(reminder(id, { state: 'EXPIRED', endTimeMs: 1 })),
      );
    }
    await store.transact(key, async (tx) => {
      expect(await tx.purgeOldestFinal(3)).toEqual([]);
      expect(await tx.purgeOldestFinal(2)).toEqual(['d']);
      // Replacing a final record keeps its place in the final order.
      tx.put(reminder('b', { state: 'EXPIRED', endTimeMs: 2 }));
      expect(await tx.purgeOldestFinal(1)).toEqual(['b']);
      expect(await tx.purgeOldestFinal(0)).toEqual(['e']);
      expect(await tx.purgeOldestFinal(0)).toEqual([]);
      expect(await tx.liveCount()).toBe(2);
    });
    expect(await ids(store)).toEqual(['a', 'c']);
  });

  it('R49: pages by sequence number, live-only on request, saying whether more follow', async () => {
    await store.transact(key, async (tx) => {
      for (const id of ['a', 'b', 'c', 'd', 'e']) tx.put(reminder(id));
      tx.setTurn(2);
    });
    await store.transact(key, async (tx) => {
      tx.put(reminder('b', { state: 'CANCELLED', endTimeMs: 1 }));
      tx.put(reminder('d', { state: 'CANCELLED', endTimeMs: 1 }));
    });
    const page = (afterSeq: number, limit: number, liveOnly = false) =>
      store.page(key, { afterSeq, limit, liveOnly });
    const first = await page(0, 2);
    expect(first?.reminders.map((r) => r.id)).toEqual(['a', 'b']);
    expect(first?.more).toBe(true);
    expect(first?.ended).toBeUndefined();
    const last = await page(2, 10);
    expect(last?.reminders.map((r) => r.id)).toEqual(['c', 'd', 'e']);
    expect(last?.more).toBe(false);
    expect((await page(0, 2, true))?.reminders.map((r) => r.id)).toEqual(['a', 'c']);
    expect((await page(0, 2, true))?.more).toBe(true);
    expect((await page(3, 2, true))?.reminders.map((r) => r.id)).toEqual(['e']);
    expect((await page(3, 2, true))?.more).toBe(false);
    const beyond = await page(5, 2);
    expect(beyond).toEqual({ ended: undefined, reminders: [], more: false });
    await store.transact(key, async (tx) =>
      tx.markEnded({ taskState: 'TASK_STATE_COMPLETED', endTimeMs: 3, purgeAfterMs: 4 }),
    );
    expect((await page(0, 1))?.ended).toEqual({
      taskState: 'TASK_STATE_COMPLETED',
      endTimeMs: 3,
      purgeAfterMs: 4,
    });
  });

  it('keeps turns and the end mark', async () => {
    await store.transact(key, async (tx) => {
      expect(tx.turn).toBe(0);
      expect(tx.ended).toBeUndefined();
      tx.setTurn(1);
    });
    await store.transact(key, async (tx) => {
      expect(tx.turn).toBe(1);
      tx.setTurn(2);
      tx.markEnded({ taskState: 'TASK_STATE_FAILED', endTimeMs: 10, purgeAfterMs: 20 });
    });
    await store.transact(key, async (tx) => {
      expect(tx.turn).toBe(2);
      expect(tx.ended).toEqual({ taskState: 'TASK_STATE_FAILED', endTimeMs: 10, purgeAfterMs: 20 });
    });
    expect((await store.read(key))?.turn).toBe(2);
  });

  it('runs transactions on different tasks and the same task side by side without losing writes', async () => {
    const tasks = ['p', 'q', 'r'];
    await Promise.all(
      tasks.flatMap((taskId) =>
        Array.from({ length: 10 }, (_, i) =>
          store.transact({ ...key, taskId }, async (tx) => {
            tx.setTurn(tx.turn + 1);
            tx.put(reminder(`${taskId}${i}`));
          }),
        ),
      ),
    );
    for (const taskId of tasks) {
      const snap = await store.read({ ...key, taskId });
      expect(snap?.turn).toBe(10);
      expect(snap?.reminders.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(new Set(snap?.reminders.map((r) => r.id)).size).toBe(10);
    }
  });
});
