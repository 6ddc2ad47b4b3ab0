import type {
  ReminderStore,
  ReminderTransaction,
  ReminderWrite,
  StoredReminderState,
} from '@a2a-reminders/core';
import { InMemoryReminderStore, isLiveState } from '@a2a-reminders/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoreKind } from './testing/store-fixture.js';
import { StoreFixture } from './testing/store-fixture.js';

// Differential test: random transactions applied to the in-memory reference
// store and to a SQL store must leave both with the same snapshot and the
// same pages, and every read inside a transaction must agree, rolled-back
// transactions included.

const IDS = ['a', 'b', 'c', 'd', 'e', 'f'];
const KEYS = ['', 'k1', 'k2'];
const FINAL: StoredReminderState[] = ['EXPIRED', 'DISPLACED', 'CANCELLED', 'DROPPED'];

type Op =
  | { kind: 'insert'; id: string; dedupeKey: string; final: boolean }
  | { kind: 'surface'; id: string }
  | { kind: 'end'; id: string; state: StoredReminderState }
  | { kind: 'purge'; keep: number }
  | { kind: 'turn' }
  | { kind: 'mark' }
  | { kind: 'read'; what: 'get' | 'live' | 'count' | 'dedupe'; arg: string };

interface Txn {
  readonly task: number;
  readonly ops: readonly Op[];
  readonly fail: boolean;
}

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('insert' as const),
    id: fc.constantFrom(...IDS),
    dedupeKey: fc.constantFrom(...KEYS),
    final: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('surface' as const), id: fc.constantFrom(...IDS) }),
  fc.record({
    kind: fc.constant('end' as const),
    id: fc.constantFrom(...IDS),
    state: fc.constantFrom(...FINAL),
  }),
  fc.record({ kind: fc.constant('purge' as const), keep: fc.integer({ min: 0, max: 3 }) }),
  fc.record({ kind: fc.constant('turn' as const) }),
  fc.record({ kind: fc.constant('mark' as const) }),
  fc.record({
    kind: fc.constant('read' as const),
    what: fc.constantFrom('get' as const, 'live' as const, 'count' as const, 'dedupe' as const),
    arg: fc.constantFrom(...IDS, ...KEYS),
  }),
);

const txn: fc.Arbitrary<Txn> = fc.record({
  task: fc.integer({ min: 0, max: 1 }),
  ops: fc.array(op, { minLength: 1, maxLength: 8 }),
  fail: fc.boolean(),
});

function fresh(id: string, dedupeKey: string, state: StoredReminderState): ReminderWrite {
  return {
    id,
    body: `body ${id}`,
    dedupeKey,
    ttlTurns: 2,
    roleHint: '',
    source: 'model',
    ...(id === 'a' ? { metadata: { n: 1, list: ['x'] } } : {}),
    state,
    createTimeMs: 1000,
    ...(isLiveState(state) ? {} : { endTimeMs: 2000 }),
    turnsSurfaced: 0,
    acceptance: { displacedReminderIds: [], taskState: 'TASK_STATE_WORKING' },
  };
}

/** Runs one transaction's ops, returning what every read saw. Never turns a final record live. */
async function apply(tx: ReminderTransaction, ops: readonly Op[]): Promise<unknown[]> {
  const seen: unknown[] = [];
  for (const o of ops) {
    switch (o.kind) {
      case 'insert': {
        const existing = await tx.get(o.id);
        if (existing === undefined)
          tx.put(fresh(o.id, o.dedupeKey, o.final ? 'CANCELLED' : 'PENDING'));
        break;
      }
      case 'surface': {
        const r = await tx.get(o.id);
        if (r !== undefined && isLiveState(r.state)) {
          tx.put({
            ...r,
            state: 'ACTIVE',
            turnsSurfaced: r.turnsSurfaced + 1,
            firstTurn: r.firstTurn ?? tx.turn,
          });
        }
        break;
      }
      case 'end': {
        const r = await tx.get(o.id);
        if (r !== undefined) tx.put({ ...r, state: o.state, endTimeMs: 3000 });
        break;
      }
      case 'purge':
        seen.push(await tx.purgeOldestFinal(o.keep));
        break;
      case 'turn':
        tx.setTurn(tx.turn + 1);
        break;
      case 'mark':
        tx.markEnded({
          taskState: 'TASK_STATE_COMPLETED',
          endTimeMs: 5,
          purgeAfterMs: 10 + tx.turn,
        });
        break;
      case 'read':
        if (o.what === 'get') seen.push(await tx.get(o.arg));
        if (o.what === 'live') seen.push(await tx.live());
        if (o.what === 'count') seen.push(await tx.liveCount());
        if (o.what === 'dedupe') seen.push(await tx.liveWithDedupeKey(o.arg));
        break;
    }
  }
  seen.push({ turn: tx.turn, ended: tx.ended });
  return seen;
}

async function run(store: ReminderStore, t: Txn): Promise<unknown> {
  const key = { tenant: 'acme', owner: 'alice', taskId: `task-${t.task}` };
  try {
    return await store.transact(key, async (tx) => {
      const seen = await apply(tx, t.ops);
      if (t.fail) throw new Error('rolled back');
      return seen;
    });
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

async function observe(store: ReminderStore): Promise<unknown> {
  const out: unknown[] = [];
  for (const task of [0, 1]) {
    const key = { tenant: 'acme', owner: 'alice', taskId: `task-${task}` };
    const snap = await store.read(key);
    out.push(snap === undefined ? 'none' : { ...snap, reminders: [...snap.reminders] });
    for (const liveOnly of [false, true]) {
      for (const afterSeq of [0, 2]) {
        out.push(await store.page(key, { afterSeq, limit: 2, liveOnly }));
      }
    }
  }
  return out;
}

describe.each<StoreKind>(['sqlite', 'postgres'])('%s store against the reference store', (kind) => {
  const fixture = new StoreFixture(kind);
  beforeAll(() => fixture.open());
  afterAll(() => fixture.close());

  it('agrees on every read and every snapshot, over random transactions', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(txn, { minLength: 1, maxLength: 12 }), async (txns) => {
        const reference = new InMemoryReminderStore();
        const sqlStore = await fixture.reset();
        for (const t of txns) {
          expect(await run(sqlStore, t)).toEqual(await run(reference, t));
        }
        expect(await observe(sqlStore)).toEqual(await observe(reference));
        expect(await sqlStore.sweep(12)).toBe(await reference.sweep(12));
        expect(await observe(sqlStore)).toEqual(await observe(reference));
      }),
      { numRuns: 40, seed: 9 },
    );
  });
});
