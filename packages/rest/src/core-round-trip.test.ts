import { TaskState } from '@a2a-js/sdk';
import { restHandler } from '@a2a-js/sdk/server/express';
import type { ReminderService } from '@a2a-reminders/core';
import {
  createReminderService,
  type ReminderError,
  TASK_REMINDERS_EXTENSION_URI,
} from '@a2a-reminders/core';
import { ReminderState } from '@a2a-reminders/proto';
import { createSdkStack, headerUserBuilder, listen, saveTask } from '@a2a-reminders/test-support';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createRestReminderClient } from './rest-client.js';
import { restReminderRouter } from './rest-router.js';
import { call } from './testing/app.js';

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** The real core service behind our middleware, next to the SDK's handler. */
async function start(serviceOptions: { requireAuthentication?: boolean } = {}) {
  const sdk = createSdkStack();
  const reminders: ReminderService = createReminderService({
    taskStore: sdk.taskStore,
    eventBusManager: sdk.eventBusManager,
    ...serviceOptions,
  });
  const common = { requestHandler: sdk.requestHandler, userBuilder: headerUserBuilder };
  const app = express();
  app.use('/a2a/rest', restReminderRouter({ ...common, reminders }), restHandler(common));
  const server = await listen(app);
  close = server.close;
  const endpoint = `${server.url}/a2a/rest`;
  return { ...sdk, endpoint, client: createRestReminderClient({ baseUrl: endpoint }) };
}

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: unknown) => e as ReminderError,
  );

describe('REST binding with the real core', () => {
  it('injects, lists and cancels, idempotently', async () => {
    const { taskStore, client } = await start();
    await saveTask(taskStore, { id: 'task-1', state: TaskState.TASK_STATE_WORKING });
    const request = {
      taskId: 'task-1',
      reminder: { id: 'r1', body: 'Budget 80% used.', ttlTurns: 2 },
    };
    const first = await client.injectTaskReminder(request);
    expect(first.record?.state).toBe(ReminderState.PENDING);
    expect(first.record?.reminder?.ttlTurns).toBe(2);
    expect(first.taskState).toBe('TASK_STATE_WORKING');
    const again = await client.injectTaskReminder(request);
    expect(again).toEqual(first);
    const listed = await client.listTaskReminders({ taskId: 'task-1' });
    expect(listed.reminders.map((r) => r.reminder?.id)).toEqual(['r1']);
    const cancelled = await client.cancelTaskReminder({ taskId: 'task-1', reminderId: 'r1' });
    expect(cancelled.record?.state).toBe(ReminderState.CANCELLED);
  });

  it('reports invalid fields with their paths', async () => {
    const { taskStore, client } = await start();
    await saveTask(taskStore, { id: 'task-1', state: TaskState.TASK_STATE_WORKING });
    const error = await failureOf(
      client.injectTaskReminder({
        taskId: 'task-1',
        reminder: { id: 'r1', body: 'b', ttlTurns: 0 },
      }),
    );
    expect(error?.code).toBe('INVALID_ARGUMENT');
    expect(error?.fieldViolations.map((v) => v.field)).toContain('reminder.ttlTurns');
  });

  it('refuses a terminal task with TASK_TERMINAL (400 FAILED_PRECONDITION)', async () => {
    const { taskStore, client, endpoint } = await start();
    await saveTask(taskStore, { id: 'done', state: TaskState.TASK_STATE_COMPLETED });
    const error = await failureOf(
      client.injectTaskReminder({ taskId: 'done', reminder: { id: 'r1', body: 'b' } }),
    );
    expect(error?.code).toBe('TASK_TERMINAL');
    const raw = await call(
      'POST',
      `${endpoint}/tasks/done:injectReminder`,
      JSON.stringify({ reminder: { id: 'r1', body: 'b' } }),
    );
    expect(raw.status).toBe(400);
    expect(raw.json).toMatchObject({
      error: {
        status: 'FAILED_PRECONDITION',
        details: [{ reason: 'UNSUPPORTED_OPERATION' }, { reason: 'TASK_TERMINAL' }],
      },
    });
  });

  it('reaches only tasks the same caller could GetTask (user and tenant scope)', async () => {
    const { taskStore, endpoint } = await start();
    await saveTask(taskStore, { id: 'mine', state: TaskState.TASK_STATE_WORKING, user: 'alice' });
    await saveTask(taskStore, {
      id: 'acme-task',
      state: TaskState.TASK_STATE_WORKING,
      tenant: 'acme',
    });
    const alice = createRestReminderClient({ baseUrl: endpoint, headers: { 'x-user': 'alice' } });
    const bob = createRestReminderClient({ baseUrl: endpoint, headers: { 'x-user': 'bob' } });
    const anonymous = createRestReminderClient({ baseUrl: endpoint });
    const reminder = { id: 'r1', body: 'b' };

    await expect(alice.injectTaskReminder({ taskId: 'mine', reminder })).resolves.toBeDefined();
    expect((await failureOf(bob.injectTaskReminder({ taskId: 'mine', reminder })))?.code).toBe(
      'TASK_NOT_FOUND',
    );
    const bobGet = await call('GET', `${endpoint}/tasks/mine`, undefined, { 'x-user': 'bob' });
    expect(bobGet.status).toBe(404);
    const tenantList = await call('GET', `${endpoint}/acme/tasks/acme-task/reminders`);
    expect(tenantList.status).toBe(200);

    await expect(
      anonymous.injectTaskReminder({ tenant: 'acme', taskId: 'acme-task', reminder }),
    ).resolves.toBeDefined();
    expect(
      (await failureOf(anonymous.injectTaskReminder({ taskId: 'acme-task', reminder })))?.code,
    ).toBe('TASK_NOT_FOUND');
  });

  it('answers a call without the extension activated with 400 EXTENSION_SUPPORT_REQUIRED', async () => {
    const { taskStore, endpoint } = await start();
    await saveTask(taskStore, { id: 'task-1', state: TaskState.TASK_STATE_WORKING });
    const raw = await call('GET', `${endpoint}/tasks/task-1/reminders`, undefined, {
      'A2A-Extensions': 'urn:something-else',
    });
    expect(raw.status).toBe(400);
    expect(raw.json.error).toMatchObject({ details: [{ reason: 'EXTENSION_SUPPORT_REQUIRED' }] });
    expect(raw.headers.get('a2a-extensions')).toBeNull();
    const ok = await call('GET', `${endpoint}/tasks/task-1/reminders`);
    expect(ok.headers.get('a2a-extensions')).toBe(TASK_REMINDERS_EXTENSION_URI);
  });

  it('answers an unauthenticated caller with HTTP 401 when the service requires authentication', async () => {
    const { taskStore, endpoint } = await start({ requireAuthentication: true });
    await saveTask(taskStore, { id: 'task-1', state: TaskState.TASK_STATE_WORKING });
    const raw = await call('GET', `${endpoint}/tasks/task-1/reminders`);
    expect(raw.status).toBe(401);
    expect(raw.json.error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED' });
    const error = await failureOf(
      createRestReminderClient({ baseUrl: endpoint }).listTaskReminders({ taskId: 'task-1' }),
    );
    expect(error?.code).toBe('UNAUTHENTICATED');
  });
});
