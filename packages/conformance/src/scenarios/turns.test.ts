import { ReminderState } from '@a2a-reminders/proto';
import { expect } from 'vitest';
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

verifies('R19-turn-boundaries', async ({ wire }) => {
  const taskId = await wire.tasks.create();
  for (const id of ['c', 'a', 'b']) {
    await wire.client.injectTaskReminder({ taskId, reminder: { id, body: id, ttlTurns: 2 } });
  }
  const t1 = await wire.tasks.turn(taskId);
  expect(t1.turn).toBe(1);
  expect(t1.reminders.map((r) => r.id)).toEqual(['c', 'a', 'b']);
  // Injects racing a boundary land in exactly one of the two turns.
  const racing = Array.from({ length: 8 }, (_, i) => `race-${i}`);
  const injects = racing.map((id) =>
    wire.client.injectTaskReminder({ taskId, reminder: { id, body: id } }),
  );
  const t2 = await wire.tasks.turn(taskId);
  await Promise.all(injects);
  const t3 = await wire.tasks.turn(taskId);
  expect([t2.turn, t3.turn]).toEqual([2, 3]);
  const seen = [...t2.reminders, ...t3.reminders]
    .map((r) => r.id)
    .filter((id) => id.startsWith('race-'));
  expect([...seen].sort()).toEqual([...racing].sort());
  expect(new Set(t2.reminders.map((r) => r.id)).size).toBe(t2.reminders.length);
  expect(new Set(t3.reminders.map((r) => r.id)).size).toBe(t3.reminders.length);
});

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
