import { TaskState } from '@a2a-js/sdk';
import { jsonRpcHandler } from '@a2a-js/sdk/server/express';
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
import { createJsonRpcReminderClient } from './json-rpc-client.js';
import { jsonRpcReminderHandler } from './json-rpc-handler.js';
import { post } from './testing/app.js';

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
  app.use('/a2a/jsonrpc', jsonRpcReminderHandler({ ...common, reminders }), jsonRpcHandler(common));
  const server = await listen(app);
  close = server.close;
  const endpoint = `${server.url}/a2a/jsonrpc`;
  return { ...sdk, endpoint, client: createJsonRpcReminderClient({ baseUrl: endpoint }) };
}

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: unknown) => e as ReminderError,
  );

describe('JSON-RPC binding with the real core', () => {
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

  it('refuses a terminal task with TASK_TERMINAL (-32004)', async () => {
    const { taskStore, client, endpoint } = await start();
    await saveTask(taskStore, { id: 'done', state: TaskState.TASK_STATE_COMPLETED });
    const error = await failureOf(
      client.injectTaskReminder({ taskId: 'done', reminder: { id: 'r1', body: 'b' } }),
    );
    expect(error?.code).toBe('TASK_TERMINAL');
    const raw = await post(
      endpoint,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'InjectTaskReminder',
        params: { taskId: 'done', reminder: { id: 'r1', body: 'b' } },
      }),
    );
    expect((raw.json.error as { code: number }).code).toBe(-32004);
  });

  it('reaches only tasks the same caller could GetTask (user and tenant scope)', async () => {
    const { taskStore, endpoint } = await start();
    await saveTask(taskStore, { id: 'mine', state: TaskState.TASK_STATE_WORKING, user: 'alice' });
    await saveTask(taskStore, {
      id: 'acme-task',
      state: TaskState.TASK_STATE_WORKING,
      tenant: 'acme',
    });
    const alice = createJsonRpcReminderClient({
      baseUrl: endpoint,
      headers: { 'x-user': 'alice' },
    });
    const bob = createJsonRpcReminderClient({ baseUrl: endpoint, headers: { 'x-user': 'bob' } });
    const anonymous = createJsonRpcReminderClient({ baseUrl: endpoint });
    const reminder = { id: 'r1', body: 'b' };

    await expect(alice.injectTaskReminder({ taskId: 'mine', reminder })).resolves.toBeDefined();
    expect((await failureOf(bob.injectTaskReminder({ taskId: 'mine', reminder })))?.code).toBe(
      'TASK_NOT_FOUND',
    );
    const bobGet = await post(
      endpoint,
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'mine' } }),
      { 'x-user': 'bob' },
    );
    expect((bobGet.json.error as { code: number }).code).toBe(-32001);

    await expect(
      anonymous.injectTaskReminder({ tenant: 'acme', taskId: 'acme-task', reminder }),
    ).resolves.toBeDefined();
    expect(
      (await failureOf(anonymous.injectTaskReminder({ taskId: 'acme-task', reminder })))?.code,
    ).toBe('TASK_NOT_FOUND');
  });

  it('answers a call without the extension activated with -32008', async () => {
    const { taskStore, endpoint } = await start();
    await saveTask(taskStore, { id: 'task-1', state: TaskState.TASK_STATE_WORKING });
    const raw = await post(
      endpoint,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'ListTaskReminders',
        params: { taskId: 'task-1' },
      }),
      { 'A2A-Extensions': 'urn:something-else' },
    );
    expect(raw.json.error).toMatchObject({ code: -32008 });
    expect(raw.headers.get('a2a-extensions')).toBeNull();
    const ok = await post(
      endpoint,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'ListTaskReminders',
        params: { taskId: 'task-1' },
      }),
    );
    expect(ok.headers.get('a2a-extensions')).toBe(TASK_REMINDERS_EXTENSION_URI);
  });

  it('answers an unauthenticated caller with HTTP 401 when the service requires authentication', async () => {
    const { taskStore, endpoint } = await start({ requireAuthentication: true });
    await saveTask(taskStore, { id: 'task-1', state: TaskState.TASK_STATE_WORKING });
    const raw = await post(
      endpoint,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'ListTaskReminders',
        params: { taskId: 'task-1' },
      }),
    );
    expect(raw.status).toBe(401);
    expect(raw.json.error).toMatchObject({ code: -32000 });
    const error = await failureOf(
      createJsonRpcReminderClient({ baseUrl: endpoint }).listTaskReminders({ taskId: 'task-1' }),
    );
    expect(error?.code).toBe('UNAUTHENTICATED');
  });
});
