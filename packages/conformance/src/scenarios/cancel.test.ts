import { ReminderState } from '@a2a-reminders/proto';
import { expect } from 'vitest';
import { eventSummary, kinds, recordSummary, reminderError } from '../harness/observe.js';
import { verifies } from '../harness/verifies.js';

verifies('R23-cancel-live', async ({ wire }) => {
  const taskId = await wire.tasks.create();
  const watch = await wire.tasks.subscribe(taskId);
  await wire.client.injectTaskReminder({ taskId, reminder: { id: 'pending', body: 'p' } });
  await wire.client.injectTaskReminder({
    taskId,
    reminder: { id: 'active', body: 'a', ttlTurns: 3 },
  });
  await wire.tasks.turn(taskId);
  const a = await wire.client.cancelTaskReminder({ taskId, reminderId: 'active' });
  expect(a.record?.state).toBe(ReminderState.CANCELLED);
  expect(a.record?.endTime).toBeDefined();
  await wire.client.injectTaskReminder({ taskId, reminder: { id: 'later', body: 'l' } });
  const p = await wire.client.cancelTaskReminder({ taskId, reminderId: 'later' });
  expect(p.record?.state).toBe(ReminderState.CANCELLED);
  await watch.untilEvents(4);
  expect(watch.batches().map((b) => b.map(eventSummary))).toEqual([
    ['emitted:pending {"turn":1}', 'emitted:active {"turn":1,"turnsRemaining":2}'],
    ['cancelled:active {"turnsSurfaced":1}'],
    ['cancelled:later {}'],
  ]);
  const next = await wire.tasks.turn(taskId);
  expect(next.reminders.map((r) => r.id)).not.toContain('active');
  expect(next.reminders.map((r) => r.id)).not.toContain('later');
});

verifies('R24-cancel-cancelled', async ({ wire }) => {
  const taskId = await wire.tasks.create();
  const watch = await wire.tasks.subscribe(taskId);
  await wire.client.injectTaskReminder({ taskId, reminder: { id: 'r', body: 'r' } });
  const first = await wire.client.cancelTaskReminder({ taskId, reminderId: 'r' });
  const second = await wire.client.cancelTaskReminder({ taskId, reminderId: 'r' });
  expect(recordSummary(second.record)).toEqual(recordSummary(first.record));
  expect(second.record?.endTime).toEqual(first.record?.endTime);
  // A later marker event proves nothing was streamed for the second cancel in between.
  await wire.client.injectTaskReminder({ taskId, reminder: { id: 'm', body: 'm' } });
  await wire.client.cancelTaskReminder({ taskId, reminderId: 'm' });
  await watch.untilEvents(2);
  expect(kinds(watch.events())).toEqual(['cancelled:r', 'cancelled:m']);
});

verifies('R25-cancel-not-live', async ({ wire }) => {
  const taskId = await wire.tasks.create();
  await wire.client.injectTaskReminder({ taskId, reminder: { id: 'expired', body: 'e' } });
  await wire.client.injectTaskReminder({
    taskId,
    reminder: { id: 'displaced', body: 'd', dedupeKey: 'k' },
  });
  await wire.client.injectTaskReminder({
    taskId,
    reminder: { id: 'successor', body: 's', dedupeKey: 'k' },
  });
  await wire.tasks.turn(taskId);
  await wire.tasks.turn(taskId);
  const cases: Array<[string, string]> = [
    ['expired', 'REMINDER_STATE_EXPIRED'],
    ['displaced', 'REMINDER_STATE_DISPLACED'],
  ];
  const other = await wire.tasks.create();
  await wire.client.injectTaskReminder({ taskId: other, reminder: { id: 'dropped', body: 'x' } });
  await wire.tasks.end(other, 'FAILED');
  for (const [reminderId, reminderState] of cases) {
    const error = await reminderError(
      wire.client.cancelTaskReminder({ taskId, reminderId }),
      'REMINDER_NOT_LIVE',
    );
    expect(error.metadata).toEqual({ taskId, reminderId, reminderState });
  }
  const dropped = await reminderError(
    wire.client.cancelTaskReminder({ taskId: other, reminderId: 'dropped' }),
    'REMINDER_NOT_LIVE',
  );
  expect(dropped.metadata).toEqual({
    taskId: other,
    reminderId: 'dropped',
    reminderState: 'REMINDER_STATE_DROPPED',
  });
});

verifies('R26-cancel-unknown', async ({ wire }) => {
  const taskId = await wire.tasks.create();
  const error = await reminderError(
    wire.client.cancelTaskReminder({ taskId, reminderId: 'never-sent' }),
    'REMINDER_NOT_FOUND',
  );
  expect(error.metadata).toEqual({ taskId, reminderId: 'never-sent' });
});
