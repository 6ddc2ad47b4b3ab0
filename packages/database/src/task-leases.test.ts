import type { ReminderStoreKey } from '@a2a-reminders/core';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TASK_LEASES_TABLE } from './schema.js';
import type { ClaimedTaskLease } from './task-leases.js';
import { TaskLeases } from './task-leases.js';
import type { TestDatabase } from './test-database.js';
import { createTestDatabase } from './test-database.js';

// R53's building blocks on a real PostgreSQL: each test uses task ids of
// its own, so the tests share one database. Expiry is forced by writing
// `expires_ms` directly, so no verdict waits on a clock.

let database: TestDatabase;
let db: Kysely<unknown>;
let leases: TaskLeases;

beforeAll(async () => {
  database = await createTestDatabase('postgres');
  db = await database.open();
  leases = new TaskLeases(db);
});

afterAll(async () => {
  await db?.destroy();
  await database?.drop();
});

const key = (taskId: string, tenant = '', owner = 'unknown'): ReminderStoreKey => ({
  tenant,
  owner,
  taskId,
});

/** The lease rows of these tasks, as stored. */
async function rows(...taskIds: string[]) {
  const { rows } = await sql<{ task_id: string; holder: string; live: boolean }>`
    select task_id, holder,
      expires_ms > (extract(epoch from clock_timestamp()) * 1000)::bigint as live
    from ${sql.table(TASK_LEASES_TABLE)}
    where task_id in (${sql.join(taskIds)})
    order by task_id`.execute(db);
  return rows;
}

/** Makes the task's lease expired, as if its holder stopped heartbeating long ago. */
async function expire(taskId: string): Promise<void> {
  await sql`update ${sql.table(TASK_LEASES_TABLE)} set expires_ms = 0
    where task_id = ${taskId}`.execute(db);
}

const ids = (keys: readonly ReminderStoreKey[]) => keys.map((k) => k.taskId).sort();

describe('TaskLeases', () => {
  it('refuses SQLite: leases are for several processes on one PostgreSQL', async () => {
    const sqlite = await createTestDatabase('sqlite', { migrate: false });
    const lite = await sqlite.open();
    try {
      expect(() => new TaskLeases(lite)).toThrow(/needs PostgreSQL, not sqlite/);
    } finally {
      await lite.destroy();
      await sqlite.drop();
    }
  });

  it('acquire records the holder with a lease in the future; a newer execution takes it over', async () => {
    await leases.acquire(key('acq-1', 'acme', 'alice'), 'r1', 60_000);
    expect(await rows('acq-1')).toEqual([{ task_id: 'acq-1', holder: 'r1', live: true }]);
    await leases.acquire(key('acq-1', 'acme', 'alice'), 'r2', 60_000);
    expect(await rows('acq-1')).toEqual([{ task_id: 'acq-1', holder: 'r2', live: true }]);
    // The same task id of another owner or tenant is another task.
    await leases.acquire(key('acq-1', 'acme', 'bob'), 'r1', 60_000);
    await leases.acquire(key('acq-1', 'other', 'alice'), 'r1', 60_000);
    expect((await rows('acq-1')).map((r) => r.holder).sort()).toEqual(['r1', 'r1', 'r2']);
  });

  it('renew extends exactly the holder’s leases and returns their keys', async () => {
    await leases.acquire(key('ren-a'), 'ren-r1', 60_000);
    await leases.acquire(key('ren-b', 't', 'o'), 'ren-r1', 60_000);
    await leases.acquire(key('ren-c'), 'ren-r2', 60_000);
    await expire('ren-a');
    await expire('ren-c');

    const renewed = await leases.renew('ren-r1', 60_000);
    expect(renewed).toHaveLength(2);
    expect(renewed).toEqual(
      expect.arrayContaining([key('ren-a'), { tenant: 't', owner: 'o', taskId: 'ren-b' }]),
    );
    // An expired lease not yet claimed is still the holder's: renewing revives it.
    expect(await rows('ren-a', 'ren-c')).toEqual([
      { task_id: 'ren-a', holder: 'ren-r1', live: true },
      { task_id: 'ren-c', holder: 'ren-r2', live: false },
    ]);
    expect(await leases.renew('nobody', 60_000)).toEqual([]);

    // Taken over by another replica: no longer in the first holder's heartbeat.
    await leases.acquire(key('ren-a'), 'ren-r2', 60_000);
    expect(ids(await leases.renew('ren-r1', 60_000))).toEqual(['ren-b']);
  });

  it('release deletes the lease only while the caller still holds it', async () => {
    await leases.acquire(key('rel-1'), 'rel-r1', 60_000);
    await leases.acquire(key('rel-1'), 'rel-r2', 60_000);
    await leases.release(key('rel-1'), 'rel-r1');
    expect(await rows('rel-1')).toEqual([{ task_id: 'rel-1', holder: 'rel-r2', live: true }]);
    await leases.release(key('rel-1'), 'rel-r2');
    expect(await rows('rel-1')).toEqual([]);
    // Releasing what is not there is no error.
    await leases.release(key('rel-1'), 'rel-r2');
  });

  it("handOver moves only the caller's lease to a name no heartbeat renews", async () => {
    await leases.acquire(key('hand-1'), 'hand-r1', 60_000);
    await leases.handOver(key('hand-1'), 'hand-other', 'x (returned)', 60_000);
    expect(await rows('hand-1')).toEqual([{ task_id: 'hand-1', holder: 'hand-r1', live: true }]);
    await leases.handOver(key('hand-1'), 'hand-r1', 'hand-r1 (returned)', 60_000);
    expect(await rows('hand-1')).toEqual([
      { task_id: 'hand-1', holder: 'hand-r1 (returned)', live: true },
    ]);
    expect(await leases.renew('hand-r1', 60_000)).toEqual([]);
  });

  it('extendClaim holds only while the claimant still has the lease', async () => {
    await leases.acquire(key('ext-1'), 'ext-gone', 60_000);
    await expire('ext-1');
    const claimed = await leases.claimExpired('ext-reaper', 100, 60_000);
    expect(ids(claimed)).toContain('ext-1');
    expect(await leases.extendClaim(key('ext-1'), 'ext-reaper', 60_000)).toBe(true);
    // A new execution of the task starts meanwhile: the reaper must leave it be.
    await leases.acquire(key('ext-1'), 'ext-new', 60_000);
    expect(await leases.extendClaim(key('ext-1'), 'ext-reaper', 60_000)).toBe(false);
    expect(await rows('ext-1')).toEqual([{ task_id: 'ext-1', holder: 'ext-new', live: true }]);
  });

  it('claimExpired takes over only expired leases, once, and an abandoned claim is claimed again', async () => {
    await leases.acquire(key('clm-dead', 'acme', 'alice'), 'clm-gone', 60_000);
    await leases.acquire(key('clm-live'), 'clm-alive', 60_000);
    await expire('clm-dead');

    const claimed = await leases.claimExpired('reaper-1', 100, 60_000);
    const mine = claimed.filter((c) => c.taskId.startsWith('clm-'));
    expect(mine).toEqual([
      { tenant: 'acme', owner: 'alice', taskId: 'clm-dead', holder: 'clm-gone' },
    ]);
    expect(await rows('clm-dead', 'clm-live')).toEqual([
      { task_id: 'clm-dead', holder: 'reaper-1', live: true },
      { task_id: 'clm-live', holder: 'clm-alive', live: true },
    ]);
    // Claimed: no other reaper gets it, and the dead holder's heartbeat no longer has it.
    expect(ids(await leases.claimExpired('reaper-2', 100, 60_000))).not.toContain('clm-dead');
    expect(await leases.renew('clm-gone', 60_000)).toEqual([]);

    // The first reaper failed to end the task and its claim ran out: another claims it.
    await expire('clm-dead');
    const again = await leases.claimExpired('reaper-2', 100, 60_000);
    expect(again.filter((c) => c.taskId === 'clm-dead')).toEqual([
      { tenant: 'acme', owner: 'alice', taskId: 'clm-dead', holder: 'reaper-1' },
    ]);
    await leases.release(key('clm-dead', 'acme', 'alice'), 'reaper-2');
    expect(await rows('clm-dead')).toEqual([]);
  });

  it('concurrent reapers never claim the same expired lease, and together claim them all', async () => {
    const count = 300;
    const taskIds = Array.from({ length: count }, (_, i) => `race-${String(i).padStart(3, '0')}`);
    for (const id of taskIds) await leases.acquire(key(id), 'race-dead', 60_000);
    await sql`update ${sql.table(TASK_LEASES_TABLE)} set expires_ms = 0
      where holder = ${'race-dead'}`.execute(db);

    // Each reaper on its own connections, as replicas are; small batches so their claims interleave.
    const reapers = await Promise.all([1, 2, 3, 4].map(() => database.open({ poolSize: 2 })));
    try {
      const claims = await Promise.all(
        reapers.map(async (conn, n) => {
          const reaper = new TaskLeases(conn);
          const got: ClaimedTaskLease[] = [];
          for (;;) {
            const batch = await reaper.claimExpired(`race-reaper-${n}`, 7, 60_000);
            const ours = batch.filter((c) => c.taskId.startsWith('race-'));
            got.push(...ours);
            if (batch.length === 0) return got;
          }
        }),
      );
      const all = claims.flat();
      expect(all.every((c) => c.holder === 'race-dead')).toBe(true);
      // Each lease claimed by exactly one reaper: no duplicates, none missed.
      expect(all.map((c) => c.taskId).sort()).toEqual(taskIds);
      const stored = await rows(...taskIds);
      for (const [n, got] of claims.entries()) {
        for (const c of got) {
          expect(stored.find((r) => r.task_id === c.taskId)?.holder).toBe(`race-reaper-${n}`);
        }
      }
    } finally {
      for (const conn of reapers) await conn.destroy();
    }
  });

  it('refuses a lease that is not a positive whole number of ms', async () => {
    await expect(leases.acquire(key('bad'), 'r', 0)).rejects.toThrow(RangeError);
    await expect(leases.renew('r', 1.5)).rejects.toThrow(RangeError);
    await expect(leases.claimExpired('r', 0, 1000)).rejects.toThrow(RangeError);
  });
});
