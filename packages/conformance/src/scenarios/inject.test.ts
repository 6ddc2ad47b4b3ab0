import { reminderPages } from '@a2a-reminders/core';
import { ReminderState } from '@a2a-reminders/proto';
import { expect } from 'vitest';
import { advertisedLimit } from '../harness/advertised-limits.js';
import { eventSummary, kinds, recordSummary, reminderError } from '../harness/observe.js';
import { verifies } from '../harness/verifies.js';

verifies('R13-idempotent-resend', async ({ wire }) => {
  const taskId = await wire.tasks.create();
  const watch = await wire.tasks.subscribe(taskId);
  const reminder = { id: 'r1', body: 'same', metadata: { a: 1, b: { c: 'd' } } };
  const first = await wire.client.injectTaskReminder({ taskId, reminder });
  const resent = await wire.client.injectTaskReminder({
    taskId,
    // Effective ttlTurns and metadata key order do not make it different.
    reminder: { ...reminder, ttlTurns: 1, metadata: { b: { c: 'd' }, a: 1 } },
  });
  expect(recordSummary(resent.record)).toEqual(recordSummary(first.record));
  expect(resent.record?.createTime).toEqual(first.record?.createTime);
  await wire.tasks.turn(taskId);
  await watch.untilEvents(1);
  // After it surfaced, and after the task ended, the original response still comes back.
  const later = await wire.client.injectTaskReminder({ taskId, reminder });
  expect(recordSummary(later.record)).toEqual(recordSummary(first.record));
  await wire.tasks.end(taskId, 'COMPLETED');
  await watch.untilEnded();
  const afterEnd = await wire.client.injectTaskReminder({ taskId, reminder });
  expect(recordSummary(afterEnd.record)).toEqual(recordSummary(first.record));
  expect(afterEnd.taskState).toBe(first.taskState);
  // Only the reminder's own events: the re-sends emitted nothing.
  expect(kinds(watch.events())).toEqual(['emitted:r1', 'expired:r1']);
  expect((await wire.client.listTaskReminders({ taskId })).reminders).toHaveLength(1);
});

verifies('R14-id-conflict', async ({ wire }) => {
  const taskId = await wire.tasks.create();
  const original = await wire.client.injectTaskReminder({
    taskId,
    reminder: { id: 'r1', body: 'one' },
  });
  const changes = [
    { body: 'two' },
    { ttlTurns: 2 },
    { dedupeKey: 'k' },
    { source: 's' },
    { roleHint: 'system' },
    { metadata: { x: 1 } },
  ];
  for (const change of changes) {
    const error = await reminderError(
      wire.client.injectTaskReminder({ taskId, reminder: { id: 'r1', body: 'one', ...change } }),
      'REMINDER_ID_CONFLICT',
    );
    expect(error.fieldViolations.map((v) => v.field)).toEqual(['reminder.id']);
    expect(error.metadata).toEqual({ taskId, reminderId: 'r1' });
  }
  const listed = await wire.client.listTaskReminders({ taskId });
  expect(listed.reminders.map(recordSummary)).toEqual([recordSummary(original.record)]);
});

verifies('R15-dedupe', async ({ wire }) => {
  const taskId = await wire.tasks.create();
  const inject = (id: string, dedupeKey: string) =>
    wire.client.injectTaskReminder({ taskId, reminder: { id, body: id, dedupeKey, ttlTurns: 3 } });
  await inject('a1', 'cost');
  await inject('b1', 'other');
  await inject('n1', '');
  await wire.tasks.turn(taskId); // a1, b1 and n1 become ACTIVE: still live
  await inject('n2', '');
  const a2 = await inject('a2', 'cost');
  expect(a2.displacedReminderIds).toEqual(['a1']);
  const a3 = await inject('a3', 'cost');
  expect(a3.displacedReminderIds).toEqual(['a2']);
  const live = (await wire.client.listTaskReminders({ taskId })).reminders.filter(
    (r) => r.state === ReminderState.PENDING || r.state === ReminderState.ACTIVE,
  );
  expect(live.map((r) => r.reminder?.id)).toEqual(['b1', 'n1', 'n2', 'a3']);
  const turn = await wire.tasks.turn(taskId);
  expect(turn.reminders.map((r) => r.id)).toEqual(['b1', 'n1', 'n2', 'a3']);
});

verifies('R16-displacement-reported', async ({ wire }) => {
  const taskId = await wire.tasks.create();
  const watch = await wire.tasks.subscribe(taskId);
  await wire.client.injectTaskReminder({
    taskId,
    reminder: { id: 'old', body: 'v1', dedupeKey: 'k' },
  });
  const next = await wire.client.injectTaskReminder({
    taskId,
    reminder: { id: 'new', body: 'v2', dedupeKey: 'k' },
  });
  expect(next.displacedReminderIds).toEqual(['old']);
  // The task's next event sends the waiting displacement first (R57), well before R67's delay.
  await wire.tasks.settle(taskId);
  await watch.untilEvents(1);
  expect(watch.batches().map((b) => b.map(eventSummary))).toEqual([
    ['displaced:old#k {"displacedBy":"new"}'],
  ]);
  const old = (await wire.client.listTaskReminders({ taskId })).reminders[0];
  expect(old?.state).toBe(ReminderState.DISPLACED);
  expect(old?.displacedBy).toBe('new');
});

verifies(
  'R17-quota',
  async ({ wire }) => {
    // The agent's own quota (R2): 2 in process, whatever the agent under test advertises in the kit.
    const quota = advertisedLimit(wire.card, 'maxLiveRemindersPerTask');
    const taskId = await wire.tasks.create();
    const inject = (id: string, dedupeKey = '') =>
      wire.client.injectTaskReminder({ taskId, reminder: { id, body: id, dedupeKey } });
    const fill = Array.from({ length: quota - 1 }, (_, i) => `r${i + 2}`);
    await inject('r1', 'k');
    for (const id of fill) await inject(id);
    const error = await reminderError(inject('over'), 'REMINDER_QUOTA_EXCEEDED');
    expect(error.metadata).toEqual({ taskId, limit: String(quota) });
    // Nothing was evicted.
    const ids = async () => {
      const out: Array<[string | undefined, ReminderState]> = [];
      for await (const page of reminderPages(wire.client, { taskId })) {
        for (const r of page.reminders) out.push([r.reminder?.id, r.state]);
      }
      return out;
    };
    expect(await ids()).toEqual(['r1', ...fill].map((id) => [id, ReminderState.PENDING]));
    // A reminder the new one displaces does not count.
    expect((await inject('r1b', 'k')).displacedReminderIds).toEqual(['r1']);
    // Final reminders do not count either.
    await wire.client.cancelTaskReminder({ taskId, reminderId: fill.at(-1) ?? 'r1b' });
    await inject('after-cancel');
    expect((await ids()).length).toBe(quota + 2);
  },
  { stack: { limits: { maxLiveRemindersPerTask: 2 } }, advertisedLimits: true },
);
