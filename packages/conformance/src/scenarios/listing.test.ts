import { ReminderState } from '@a2a-reminders/proto';
import { expect } from 'vitest';
import { verifies } from '../harness/verifies.js';

verifies('R34-listing', async ({ wire }) => {
  const taskId = await wire.tasks.create();
  await wire.client.injectTaskReminder({
    taskId,
    reminder: { id: 'z-first', body: 'a', ttlTurns: 2, dedupeKey: 'k' },
  });
  await wire.client.injectTaskReminder({ taskId, reminder: { id: 'a-second', body: 'b' } });
  await wire.tasks.turn(taskId);
  await wire.client.injectTaskReminder({
    taskId,
    reminder: { id: 'm-third', body: 'c', dedupeKey: 'k' },
  });
  const { reminders } = await wire.client.listTaskReminders({ taskId });
  // Acceptance order, not id order.
  expect(reminders.map((r) => r.reminder?.id)).toEqual(['z-first', 'a-second', 'm-third']);
  const [first, second, third] = reminders;
  expect(first?.taskId).toBe(taskId);
  expect([first?.state, first?.displacedBy, first?.firstTurn, first?.turnsRemaining]).toEqual([
    ReminderState.DISPLACED,
    'm-third',
    1,
    0,
  ]);
  expect(first?.createTime).toBeDefined();
  expect(first?.endTime).toBeDefined();
  expect([second?.state, second?.firstTurn, second?.turnsRemaining, second?.endTime]).toEqual([
    ReminderState.ACTIVE,
    1,
    0,
    undefined,
  ]);
  expect([
    third?.state,
    third?.firstTurn,
    third?.turnsRemaining,
    third?.reminder?.ttlTurns,
  ]).toEqual([ReminderState.PENDING, undefined, 1, 1]);
});

/** The service clock of the current case; each case gets a fresh one from its stack factory. */
let nowMs = 0;

verifies(
  'R35-retention',
  async ({ wire }) => {
    const taskId = await wire.tasks.create();
    await wire.client.injectTaskReminder({ taskId, reminder: { id: 'r', body: 'r' } });
    await wire.tasks.end(taskId, 'COMPLETED');
    nowMs += 59_000;
    const kept = await wire.client.listTaskReminders({ taskId });
    expect(kept.reminders.map((r) => r.state)).toEqual([ReminderState.DROPPED]);
    nowMs += 2_000;
    const purged = await wire.client.listTaskReminders({ taskId });
    expect(purged.reminders).toEqual([]);
  },
  {
    stack: () => {
      nowMs = Date.UTC(2026, 0, 1);
      return { now: () => new Date(nowMs), limits: { retentionMs: 60_000 } };
    },
  },
);
