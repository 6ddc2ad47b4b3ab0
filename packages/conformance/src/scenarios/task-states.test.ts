import { TaskState } from '@a2a-js/sdk';
import { ServerCallContext } from '@a2a-js/sdk/server';
import { ReminderState } from '@a2a-reminders/proto';
import { expect } from 'vitest';
import { NotObservable } from '../harness/not-observable.js';
import { kinds, reminderError } from '../harness/observe.js';
import type { EndState, HoldState } from '../harness/task-driver.js';
import { verifies } from '../harness/verifies.js';
import type { Wire } from '../harness/wire.js';

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

verifies('R65-running-execution-status', async ({ wire }) => {
  const taskId = await wire.tasks.create();
  // The execution keeps running throughout, so each inject is judged by the
  // state it just published (an interrupted state last: the A2A server stops
  // storing an execution's states after one).
  const states: HoldState[] = ['SUBMITTED', 'WORKING', 'INPUT_REQUIRED'];
  for (const [i, state] of states.entries()) {
    await wire.tasks.hold(taskId, state, false);
    const response = await wire.client.injectTaskReminder({
      taskId,
      reminder: { id: `r${i}`, body: `after ${state}` },
    });
    expect(response.taskState).toBe(`TASK_STATE_${state}`);
    expect(response.record?.state).toBe(ReminderState.PENDING);
  }
  const listed = await wire.client.listTaskReminders({ taskId });
  expect(listed.reminders.map((r) => [r.reminder?.id, r.state])).toEqual([
    ['r0', ReminderState.PENDING],
    ['r1', ReminderState.PENDING],
    ['r2', ReminderState.PENDING],
  ]);

  // In process only (the kit cannot write the agent's task store): the
  // stored task disagrees with the running execution, and the inject
  // follows the execution.
  let stack: Wire['stack'];
  try {
    stack = wire.stack;
  } catch (error) {
    if (error instanceof NotObservable) return;
    throw error;
  }
  const running = await wire.tasks.create();
  const stored = await wire.tasks.getTask(running);
  await stack.taskStore.save(
    {
      ...stored,
      status: {
        state: TaskState.TASK_STATE_INPUT_REQUIRED,
        message: undefined,
        timestamp: new Date().toISOString(),
      },
    },
    new ServerCallContext(),
  );
  const judged = await wire.client.injectTaskReminder({
    taskId: running,
    reminder: { id: 'r', body: 'while working' },
  });
  expect(judged.taskState).toBe('TASK_STATE_WORKING');
});
