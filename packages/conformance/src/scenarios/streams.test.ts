import { ListTasksRequest, TaskState } from '@a2a-js/sdk';
import { ServerCallContext } from '@a2a-js/sdk/server';
import { reminderEventsOf, TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import { ReminderState } from '@a2a-reminders/proto';
import { expect } from 'vitest';
import { eventSummary, kinds } from '../harness/observe.js';
import { verifies } from '../harness/verifies.js';
import type { Wire } from '../harness/wire.js';

verifies('R30-status-updates', async ({ wire }) => {
  const taskId = await wire.tasks.create();
  const before = await wire.tasks.getTask(taskId);
  const watch = await wire.tasks.subscribe(taskId);
  await wire.client.injectTaskReminder({
    taskId,
    reminder: { id: 'a', body: 'a', dedupeKey: 'k' },
  });
  await wire.client.injectTaskReminder({
    taskId,
    reminder: { id: 'b', body: 'b', dedupeKey: 'k' },
  });
  await wire.tasks.turn(taskId);
  await watch.untilEvents(2);
  const updates = watch.items.slice(1);
  // One status update per batch: the displacement, then the boundary.
  expect(updates).toHaveLength(2);
  for (const item of updates) {
    expect(item.payload?.$case).toBe('statusUpdate');
    if (item.payload?.$case !== 'statusUpdate') continue;
    const update = item.payload.value;
    expect(update.taskId).toBe(taskId);
    expect(update.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(update.status?.message).toBeUndefined();
    const batch = update.metadata?.[TASK_REMINDERS_EXTENSION_URI] as { taskId?: string };
    expect(batch.taskId).toBe(taskId);
  }
  expect(updates.map((u) => reminderEventsOf(u).map(eventSummary))).toEqual([
    ['displaced:a#k {"displacedBy":"b"}'],
    ['emitted:b#k {"turn":1}'],
  ]);
  // Nothing entered the history.
  const after = await wire.tasks.getTask(taskId);
  expect(after.history).toEqual(before.history);
});

verifies('R31-no-reverted-states', async ({ wire }) => {
  const taskId = await wire.tasks.create();
  const watch = await wire.tasks.subscribe(taskId);
  await wire.tasks.hold(taskId, 'AUTH_REQUIRED');
  await wire.client.injectTaskReminder({ taskId, reminder: { id: 'a', body: 'a' } });
  await watch.untilEvents(0);
  await wire.tasks.hold(taskId, 'WORKING');
  await wire.tasks.turn(taskId);
  await watch.untilEvents(1);
  const states = watch.items
    .slice(1)
    .map((item) => (item.payload?.$case === 'statusUpdate' ? item.payload.value : undefined))
    .map(
      (u) =>
        `${TaskState[u?.status?.state ?? 0]}${reminderEventsOf(u).length > 0 ? '+reminders' : ''}`,
    );
  // The reminder update published in AUTH_REQUIRED did not report WORKING, and vice versa.
  expect(states).toEqual([
    'TASK_STATE_AUTH_REQUIRED',
    'TASK_STATE_WORKING',
    'TASK_STATE_WORKING+reminders',
  ]);
  expect((await wire.tasks.getTask(taskId)).status?.state).toBe(TaskState.TASK_STATE_WORKING);
});

verifies('R32-no-stream', async ({ wire }) => {
  // A task with no execution and so no event stream (stored by another process).
  const taskId = 'seeded-task';
  await wire.stack.taskStore.save(
    {
      id: taskId,
      contextId: 'ctx',
      status: {
        state: TaskState.TASK_STATE_WORKING,
        message: undefined,
        timestamp: new Date().toISOString(),
      },
      artifacts: [],
      history: [],
      metadata: undefined,
    },
    new ServerCallContext(),
  );
  await wire.client.injectTaskReminder({
    taskId,
    reminder: { id: 'a', body: 'a', dedupeKey: 'k' },
  });
  const b = await wire.client.injectTaskReminder({
    taskId,
    reminder: { id: 'b', body: 'b', dedupeKey: 'k' },
  });
  expect(b.displacedReminderIds).toEqual(['a']);
  await wire.client.cancelTaskReminder({ taskId, reminderId: 'b' });
  const states = (await wire.client.listTaskReminders({ taskId })).reminders.map((r) => r.state);
  expect(states).toEqual([ReminderState.DISPLACED, ReminderState.CANCELLED]);
  // Nothing was published: the A2A server never saved a batch with the task (R66 aside).
  expect(wire.stack.taskStore.lastSavedBatch(taskId)).toEqual([]);
  expect(wire.stack.taskStore.saves(taskId)).toHaveLength(1);
});

verifies('R33-forward-compatibility', async ({ wire }) => {
  const taskId = await wire.tasks.create();
  const watch = await wire.tasks.subscribe(taskId);
  await wire.client.injectTaskReminder({ taskId, reminder: { id: 'a', body: 'a' } });
  await wire.tasks.turn(taskId);
  await watch.untilEvents(1);
  // The snapshot carries no reminder metadata and reads as no events.
  expect(reminderEventsOf(watch.items[0])).toEqual([]);
  const carrier = watch.items.find((item) => reminderEventsOf(item).length > 0);
  if (carrier?.payload?.$case !== 'statusUpdate') throw new Error('no reminder status update');
  const batch = carrier.payload.value.metadata?.[TASK_REMINDERS_EXTENSION_URI] as {
    events: Array<Record<string, unknown>>;
  };
  // A newer server: unknown batch fields, unknown event fields, an unknown event member.
  const newer = structuredClone(carrier);
  if (newer.payload?.$case !== 'statusUpdate') throw new Error('unreachable');
  newer.payload.value.metadata = {
    [TASK_REMINDERS_EXTENSION_URI]: {
      ...batch,
      futureBatchField: 1,
      events: [
        ...batch.events.map((e) => ({ ...e, futureEventField: 'x' })),
        { reminderId: 'z', snoozed: { until: 3 } },
      ],
    },
    'https://example.com/other': { unrelated: true },
  };
  expect(kinds(reminderEventsOf(newer))).toEqual(['emitted:a']);
});

verifies('W4-events-on-every-stream', async ({ wire }) => {
  const { taskId, watch: streaming } = await wire.tasks.stream();
  const first = await wire.tasks.subscribe(taskId);
  const second = await wire.tasks.subscribe(taskId);
  await wire.client.injectTaskReminder({
    taskId,
    reminder: { id: 'a', body: 'a', dedupeKey: 'k' },
  });
  await wire.client.injectTaskReminder({
    taskId,
    reminder: { id: 'b', body: 'b', dedupeKey: 'k' },
  });
  await wire.tasks.turn(taskId);
  await wire.tasks.end(taskId, 'COMPLETED');
  const expected = [
    ['displaced:a#k {"displacedBy":"b"}'],
    ['emitted:b#k {"turn":1}'],
    ['expired:b#k {"lastTurn":1,"turnsSurfaced":1}'],
  ];
  for (const watch of [streaming, first, second]) {
    await watch.untilEnded();
    expect(watch.batches().map((b) => b.map(eventSummary))).toEqual(expected);
    for (const item of watch.items.filter((i) => reminderEventsOf(i).length > 0)) {
      expect(item.payload?.$case).toBe('statusUpdate');
    }
  }
});

/** A stock client's ordinary calls around a task that has (had) reminders. */
async function stockCallsAround(wire: Wire, pendingAtCancel: boolean) {
  const { taskId, watch } = await wire.tasks.stream();
  await wire.client.injectTaskReminder({ taskId, reminder: { id: 'a', body: 'a' } });
  await watch.untilEvents(0);
  const task = await wire.sdk.getTask({ tenant: '', id: taskId });
  expect(task.status?.state).toBe(TaskState.TASK_STATE_WORKING);
  const listedTasks = await wire.sdk.listTasks(ListTasksRequest.fromJSON({ pageSize: 10 }));
  expect(listedTasks.tasks.map((t) => t.id)).toContain(taskId);
  await wire.tasks.turn(taskId);
  // Follow-up message on an interrupted task, then CancelTask: both as without the extension.
  await wire.tasks.hold(taskId, 'INPUT_REQUIRED');
  await watch.untilEnded();
  await wire.tasks.resume(taskId);
  await wire.tasks.turn(taskId); // 'a' expires here
  if (pendingAtCancel)
    await wire.client.injectTaskReminder({ taskId, reminder: { id: 'b', body: 'b' } });
  await wire.tasks.hold(taskId, 'INPUT_REQUIRED');
  const cancelled = await wire.sdk.cancelTask({ tenant: '', id: taskId, metadata: undefined });
  expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  // Reminder status updates did not break the stock stream: it saw the task and closed normally.
  expect(watch.error).toBeUndefined();
  expect(watch.items[0]?.payload?.$case).toBe('task');
  await expect(wire.sdk.getTask({ tenant: '', id: 'no-such-task' })).rejects.toThrow(/not found/i);
}

verifies('W5-stock-client-unaffected', ({ wire }) => stockCallsAround(wire, false));

verifies('W5-stock-client-unaffected', ({ wire }) => stockCallsAround(wire, true), {
  variant: 'cancel an input-required task holding a reminder',
});
