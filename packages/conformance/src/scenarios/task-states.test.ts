import { ReminderState } from '@a2a-reminders/proto';
import { expect } from 'vitest';
import { kinds, reminderError } from '../harness/observe.js';
import type { EndState } from '../harness/task-driver.js';
import { verifies } from '../harness/verifies.js';

verifies('R10-running-tasks-accept', async ({ wire }) => {
  const working = await wire.tasks.create();
  const response = await wire.client.injectTaskReminder({
    taskId: working,
    reminder: { id: 'r1', body: 'budget is 80% spent' },
  });
  expect(response.record?.state).toBe(ReminderState.PENDING);
  expect(response.taskState).toBe('TASK_STATE_WORKING');
  const submitted = await wire.tasks.create();
  await wire.tasks.hold(submitted, 'SUBMITTED');
  const early = await wire.client.injectTaskReminder({
    taskId: submitted,
    reminder: { id: 'r1', body: 'early' },
  });
  expect(early.record?.state).toBe(ReminderState.PENDING);
  expect(early.taskState).toBe('TASK_STATE_SUBMITTED');
});

verifies('R11-interrupted-tasks-hold', async ({ wire }) => {
  const input = await wire.tasks.create();
  await wire.tasks.hold(input, 'INPUT_REQUIRED');
  const held = await wire.client.injectTaskReminder({
    taskId: input,
    reminder: { id: 'r1', body: 'while waiting for input' },
  });
  expect(held.taskState).toBe('TASK_STATE_INPUT_REQUIRED');
  expect(held.record?.state).toBe(ReminderState.PENDING);
  await wire.tasks.resume(input);
  const watch = await wire.tasks.subscribe(input);
  const turn = await wire.tasks.turn(input);
  expect(turn.reminders.map((r) => r.id)).toEqual(['r1']);
  await watch.untilEvents(1);
  expect(kinds(watch.events())).toEqual(['emitted:r1']);

  const auth = await wire.tasks.create();
  await wire.tasks.hold(auth, 'AUTH_REQUIRED');
  const authHeld = await wire.client.injectTaskReminder({
    taskId: auth,
    reminder: { id: 'a1', body: 'while waiting for credentials' },
  });
  expect(authHeld.taskState).toBe('TASK_STATE_AUTH_REQUIRED');
  const listed = await wire.client.listTaskReminders({ taskId: auth });
  expect(listed.reminders.map((r) => r.state)).toEqual([ReminderState.PENDING]);
  await wire.tasks.hold(auth, 'WORKING');
  const authTurn = await wire.tasks.turn(auth);
  expect(authTurn.reminders.map((r) => r.id)).toEqual(['a1']);
});

verifies('R12-terminal-tasks-refuse', async ({ wire }) => {
  const states: EndState[] = ['COMPLETED', 'FAILED', 'CANCELED', 'REJECTED'];
  for (const state of states) {
    const taskId = await wire.tasks.create();
    await wire.tasks.end(taskId, state);
    const error = await reminderError(
      wire.client.injectTaskReminder({ taskId, reminder: { id: 'late', body: 'too late' } }),
      'TASK_TERMINAL',
    );
    expect(error.metadata).toEqual({ taskId, taskState: `TASK_STATE_${state}` });
  }
});
