import { TaskState } from '@a2a-js/sdk';
import { ServerCallContext } from '@a2a-js/sdk/server';
import { ReminderState } from '@a2a-reminders/proto';
import { expect } from 'vitest';
import { eventSummary, reminderError } from '../harness/observe.js';
import type { StreamWatch } from '../harness/stream-watch.js';
import { verifies } from '../harness/verifies.js';
import type { Wire } from '../harness/wire.js';

/** Index of the first stream item announcing a terminal state. */
function terminalIndex(watch: StreamWatch): number {
  const terminal = [
    TaskState.TASK_STATE_COMPLETED,
    TaskState.TASK_STATE_FAILED,
    TaskState.TASK_STATE_CANCELED,
    TaskState.TASK_STATE_REJECTED,
  ];
  return watch.items.findIndex(
    (item) =>
      item.payload?.$case === 'statusUpdate' &&
      terminal.includes(item.payload.value.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED),
  );
}

function lastReminderIndex(watch: StreamWatch): number {
  return watch.items.findLastIndex(
    (item) =>
      item.payload?.$case === 'statusUpdate' &&
      item.payload.value.metadata !== undefined &&
      Object.keys(item.payload.value.metadata).length > 0,
  );
}

verifies('R27-task-end', async ({ wire }) => {
  const taskId = await wire.tasks.create();
  const watch = await wire.tasks.subscribe(taskId);
  await wire.client.injectTaskReminder({ taskId, reminder: { id: 'used', body: 'u' } });
  await wire.client.injectTaskReminder({
    taskId,
    reminder: { id: 'left', body: 'l', ttlTurns: 3 },
  });
  await wire.tasks.turn(taskId);
  await wire.client.injectTaskReminder({ taskId, reminder: { id: 'never', body: 'n' } });
  await wire.tasks.end(taskId, 'COMPLETED');
  await watch.untilEnded();
  expect(watch.batches().map((b) => b.map(eventSummary))).toEqual([
    ['emitted:used {"turn":1}', 'emitted:left {"turn":1,"turnsRemaining":2}'],
    [
      'expired:used {"lastTurn":1,"turnsSurfaced":1}',
      'expired:left {"lastTurn":1,"turnsSurfaced":1,"taskEnded":true}',
      'dropped:never {"taskState":"TASK_STATE_COMPLETED"}',
    ],
  ]);
  // Every fate precedes the terminal status update that closes the stream.
  expect(terminalIndex(watch)).toBeGreaterThan(lastReminderIndex(watch));
  expect(terminalIndex(watch)).toBe(watch.items.length - 1);
  const states = (await wire.client.listTaskReminders({ taskId })).reminders.map((r) => r.state);
  expect(states).toEqual([ReminderState.EXPIRED, ReminderState.EXPIRED, ReminderState.DROPPED]);
  await reminderError(
    wire.client.injectTaskReminder({ taskId, reminder: { id: 'after', body: 'a' } }),
    'TASK_TERMINAL',
  );
});

/** A stock CancelTask with one pending reminder; the stream must show its fate before CANCELED. */
async function cancelWithPendingReminder(wire: Wire, taskId: string, watch: StreamWatch) {
  await wire.client.injectTaskReminder({ taskId, reminder: { id: 'p', body: 'p' } });
  const cancelled = await wire.sdk.cancelTask(
    { tenant: '', id: taskId, metadata: undefined },
    { serviceParameters: wire.tasks.serviceParametersOf(taskId) },
  );
  expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  await watch.untilEnded();
  expect(watch.batches().map((b) => b.map(eventSummary))).toEqual([
    ['dropped:p {"taskState":"TASK_STATE_CANCELED"}'],
  ]);
  expect(terminalIndex(watch)).toBeGreaterThan(lastReminderIndex(watch));
  const listed = (await wire.client.listTaskReminders({ taskId })).reminders;
  expect(listed.map((r) => r.state)).toEqual([ReminderState.DROPPED]);
}

verifies('R28-executor-wrapper', async ({ wire }) => {
  // cancelTask while no execution runs (the task waits for credentials; its bus is kept alive).
  const taskId = await wire.tasks.create();
  await wire.tasks.hold(taskId, 'AUTH_REQUIRED', true);
  const watch = await wire.tasks.subscribe(taskId);
  await cancelWithPendingReminder(wire, taskId, watch);
});

verifies(
  'R28-executor-wrapper',
  async ({ wire }) => {
    // cancelTask while execute runs: the executor publishes CANCELED and lets execute return.
    const taskId = await wire.tasks.create();
    const watch = await wire.tasks.subscribe(taskId);
    await cancelWithPendingReminder(wire, taskId, watch);
  },
  { variant: 'cancel during execution' },
);

verifies('R29-reconciliation', async ({ wire }) => {
  const taskId = await wire.tasks.create();
  await wire.client.injectTaskReminder({ taskId, reminder: { id: 'p', body: 'p' } });
  // The task turns terminal behind the service's back (another process, no executor running).
  const stored = await wire.tasks.getTask(taskId);
  await wire.stack.taskStore.save(
    {
      ...stored,
      status: {
        state: TaskState.TASK_STATE_REJECTED,
        message: undefined,
        timestamp: new Date().toISOString(),
      },
    },
    new ServerCallContext(),
  );
  const listed = (await wire.client.listTaskReminders({ taskId })).reminders;
  expect(listed.map((r) => r.state)).toEqual([ReminderState.DROPPED]);
  expect(listed[0]?.endTime).toBeDefined();
  const error = await reminderError(
    wire.client.injectTaskReminder({ taskId, reminder: { id: 'q', body: 'q' } }),
    'TASK_TERMINAL',
  );
  expect(error.metadata.taskState).toBe('TASK_STATE_REJECTED');
});
