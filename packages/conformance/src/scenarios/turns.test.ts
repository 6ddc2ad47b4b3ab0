import { ReminderState } from '@a2a-reminders/proto';
import { expect } from 'vitest';
import { GatedStore } from '../harness/gated-store.js';
import { eventSummary, kinds } from '../harness/observe.js';
import { verifies } from '../harness/verifies.js';

verifies('R18-states', async ({ wire }) => {
  const taskId = await wire.tasks.create();
  const watch = await wire.tasks.subscribe(taskId);
  const inject = (id: string, extra: object = {}) =>
    wire.client.injectTaskReminder({ taskId, reminder: { id, body: id, ...extra } });
  await inject('expires');
  await inject('displaced', { dedupeKey: 'k' });
  await inject('cancelled', { ttlTurns: 5 });
  await wire.tasks.turn(taskId);
  await inject('successor', { dedupeKey: 'k' });
  await wire.client.cancelTaskReminder({ taskId, reminderId: 'cancelled' });
  await wire.tasks.turn(taskId);
  await inject('dropped');
  await wire.tasks.end(taskId, 'COMPLETED');
  await watch.untilEnded();
  const finals = watch.events().filter((e) => e.event.case !== 'emitted');
  // Exactly one final event per reminder.
  const ids = finals.map((e) => e.reminderId).sort();
  expect(ids).toEqual(['cancelled', 'displaced', 'dropped', 'expires', 'successor']);
  const states = Object.fromEntries(
    (await wire.client.listTaskReminders({ taskId })).reminders.map((r) => [
      r.reminder?.id,
      r.state,
    ]),
  );
  expect(states).toEqual({
    expires: ReminderState.EXPIRED,
    displaced: ReminderState.DISPLACED,
    cancelled: ReminderState.CANCELLED,
    successor: ReminderState.EXPIRED,
    dropped: ReminderState.DROPPED,
  });
  // Final states never change: cancelling a final one is refused and the list is unchanged.
  await expect(wire.client.cancelTaskReminder({ taskId, reminderId: 'expires' })).rejects.toThrow();
  const again = Object.fromEntries(
    (await wire.client.listTaskReminders({ taskId })).reminders.map((r) => [
      r.reminder?.id,
      r.state,
    ]),
  );
  expect(again).toEqual(states);
});

/**
 * The order of transaction `n` (held) and the next one in the store's log:
 * the second was asked for while the first ran, and started after it ended.
 */
function interleaving(log: readonly string[], n: number): string[] {
  const mine = new Set([`start ${n}`, `end ${n}`, `call ${n + 1}`, `start ${n + 1}`]);
  return log
    .filter((e) => mine.has(e))
    .map((e) => e.replace(`${n + 1}`, 'second').replace(`${n}`, 'first'));
}
const INTERLEAVED = ['start first', 'call second', 'end first', 'start second'];

/** The store of the case running now, for the R19 interleavings (cases run one at a time). */
let gated = new GatedStore();

verifies(
  'R19-turn-boundaries',
  async ({ wire }) => {
    const store = gated;
    const taskId = await wire.tasks.create();
    for (const id of ['c', 'a', 'b']) {
      await wire.client.injectTaskReminder({ taskId, reminder: { id, body: id, ttlTurns: 2 } });
    }
    const t1 = await wire.tasks.turn(taskId);
    expect(t1.turn).toBe(1);
    expect(t1.reminders.map((r) => r.id)).toEqual(['c', 'a', 'b']);
    const inject = (id: string) =>
      wire.client.injectTaskReminder({ taskId, reminder: { id, body: id } });

    // Boundary first: the turn's transaction is held after its first read,
    // the inject is sent and reaches the store, then the turn goes on.
    const turnHeld = store.holdNext();
    const turn2 = wire.tasks.turn(taskId);
    const t = await turnHeld;
    const late = inject('late');
    await store.untilCalls(t.n + 1);
    t.release();
    const [t2] = await Promise.all([turn2, late]);
    // The interleaving happened: the inject reached the store while the turn ran.
    expect(interleaving(store.log, t.n)).toEqual(INTERLEAVED);
    // It lands in exactly one turn: the next one.
    expect(t2.turn).toBe(2);
    expect(t2.reminders.map((r) => r.id)).toEqual(['c', 'a', 'b']);
    const t3 = await wire.tasks.turn(taskId);
    expect(t3.reminders.map((r) => [r.id, r.firstSurfacing])).toEqual([['late', true]]);

    // Inject first: its transaction is held after its first read, the
    // boundary starts and reaches the store, then the inject goes on.
    const injectHeld = store.holdNext();
    const early = inject('early');
    const i = await injectHeld;
    const turn4 = wire.tasks.turn(taskId);
    await store.untilCalls(i.n + 1);
    i.release();
    const [, t4] = await Promise.all([early, turn4]);
    expect(interleaving(store.log, i.n)).toEqual(INTERLEAVED);
    // It lands in exactly one turn: this one.
    expect(t4.turn).toBe(4);
    expect(t4.reminders.map((r) => [r.id, r.firstSurfacing])).toEqual([['early', true]]);
    const t5 = await wire.tasks.turn(taskId);
    expect(t5.reminders.map((r) => r.id)).toEqual([]);
  },
  {
    stack: () => ({
      wrapStore: (store) => {
        gated = new GatedStore(store);
        return gated;
      },
    }),
  },
);

verifies('R20-surfacing', async ({ wire }) => {
  const taskId = await wire.tasks.create();
  await wire.tasks.turn(taskId); // turn 1 before the inject
  await wire.client.injectTaskReminder({
    taskId,
    reminder: { id: 'r', body: 'three turns', ttlTurns: 3 },
  });
  const surfaced: Array<[number, boolean, number]> = [];
  for (let i = 0; i < 5; i++) {
    const turn = await wire.tasks.turn(taskId);
    const r = turn.reminders.find((x) => x.id === 'r');
    if (r !== undefined) surfaced.push([turn.turn, r.firstSurfacing, r.turnsRemaining]);
  }
  expect(surfaced).toEqual([
    [2, true, 2],
    [3, false, 1],
    [4, false, 0],
  ]);
});

verifies('R21-emitted', async ({ wire }) => {
  const taskId = await wire.tasks.create();
  const watch = await wire.tasks.subscribe(taskId);
  await wire.client.injectTaskReminder({ taskId, reminder: { id: 'a', body: 'a', ttlTurns: 3 } });
  await wire.client.injectTaskReminder({ taskId, reminder: { id: 'b', body: 'b' } });
  await wire.tasks.turn(taskId);
  await watch.untilEvents(2);
  // One batch for the boundary, in acceptance order.
  expect(watch.batches().map((b) => b.map(eventSummary))).toEqual([
    ['emitted:a {"turn":1,"turnsRemaining":2}', 'emitted:b {"turn":1}'],
  ]);
  await wire.tasks.turn(taskId);
  await watch.untilEvents(3);
  // Only the first surfacing emits.
  expect(kinds(watch.events())).toEqual(['emitted:a', 'emitted:b', 'expired:b']);
});

verifies('R22-expired', async ({ wire }) => {
  const taskId = await wire.tasks.create();
  const watch = await wire.tasks.subscribe(taskId);
  await wire.client.injectTaskReminder({ taskId, reminder: { id: 'r', body: 'r', ttlTurns: 2 } });
  await wire.tasks.turn(taskId);
  await wire.tasks.turn(taskId);
  // Between its last turn and the next boundary it is ACTIVE with 0 turns remaining.
  const between = (await wire.client.listTaskReminders({ taskId })).reminders[0];
  expect([between?.state, between?.turnsRemaining]).toEqual([ReminderState.ACTIVE, 0]);
  const third = await wire.tasks.turn(taskId);
  expect(third.reminders).toEqual([]);
  await watch.untilEvents(2);
  expect(watch.batches().map((b) => b.map(eventSummary))).toEqual([
    ['emitted:r {"turn":1,"turnsRemaining":1}'],
    ['expired:r {"lastTurn":2,"turnsSurfaced":2}'],
  ]);
  const after = (await wire.client.listTaskReminders({ taskId })).reminders[0];
  expect(after?.state).toBe(ReminderState.EXPIRED);
});
