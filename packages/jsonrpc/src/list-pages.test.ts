import { TaskState } from '@a2a-js/sdk';
import { jsonRpcHandler } from '@a2a-js/sdk/server/express';
import type { ReminderError } from '@a2a-reminders/core';
import { createReminderService, reminderPages } from '@a2a-reminders/core';
import { createSdkStack, headerUserBuilder, listen, saveTask } from '@a2a-reminders/test-support';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createJsonRpcReminderClient } from './json-rpc-client.js';
import { jsonRpcReminderHandler } from './json-rpc-handler.js';
import { post } from './testing/app.js';

// R49 over JSON-RPC: pageSize, pageToken and liveOnly are members of the
// ListTaskReminders params (ProtoJSON), nextPageToken a member of the result.

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** The real core behind our handler; task-1 holds a0..a4, a1 cancelled. */
async function start() {
  const sdk = createSdkStack();
  const reminders = createReminderService({
    taskStore: sdk.taskStore,
    eventBusManager: sdk.eventBusManager,
  });
  const common = { requestHandler: sdk.requestHandler, userBuilder: headerUserBuilder };
  const app = express();
  app.use('/a2a/jsonrpc', jsonRpcReminderHandler({ ...common, reminders }), jsonRpcHandler(common));
  const server = await listen(app);
  close = server.close;
  const endpoint = `${server.url}/a2a/jsonrpc`;
  const client = createJsonRpcReminderClient({ baseUrl: endpoint });
  await saveTask(sdk.taskStore, { id: 'task-1', state: TaskState.TASK_STATE_WORKING });
  for (let i = 0; i < 5; i += 1) {
    await client.injectTaskReminder({ taskId: 'task-1', reminder: { id: `a${i}`, body: 'b' } });
  }
  await client.cancelTaskReminder({ taskId: 'task-1', reminderId: 'a1' });
  return { endpoint, client };
}

type Json = Record<string, unknown>;

async function list(endpoint: string, params: Json) {
  const answer = await post(
    endpoint,
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ListTaskReminders', params }),
  );
  return answer.json;
}

describe('JSON-RPC ListTaskReminders pages (R49)', () => {
  it('the client pages with pageSize and pageToken and filters with liveOnly', async () => {
    const { client } = await start();
    const pages: unknown[][] = [];
    for await (const page of reminderPages(client, { taskId: 'task-1', pageSize: 2 })) {
      pages.push(page.reminders.map((r) => r.reminder?.id));
    }
    expect(pages).toEqual([['a0', 'a1'], ['a2', 'a3'], ['a4']]);
    const live = await client.listTaskReminders({ taskId: 'task-1', liveOnly: true, pageSize: 3 });
    expect(live.reminders.map((r) => r.reminder?.id)).toEqual(['a0', 'a2', 'a3']);
    const rest = await client.listTaskReminders({
      taskId: 'task-1',
      liveOnly: true,
      pageToken: live.nextPageToken,
    });
    expect([rest.reminders.map((r) => r.reminder?.id), rest.nextPageToken]).toEqual([['a4'], '']);
  });

  it('raw params: pageSize as a number or decimal string, nextPageToken in the result', async () => {
    const { endpoint } = await start();
    const first = (await list(endpoint, { taskId: 'task-1', pageSize: '2' })).result as Json;
    expect(((first.reminders as Json[]) ?? []).length).toBe(2);
    expect(first.nextPageToken).toEqual(expect.any(String));
    const last = (
      await list(endpoint, { taskId: 'task-1', pageSize: 3, pageToken: first.nextPageToken })
    ).result as Json;
    expect([(last.reminders as Json[]).length, last.nextPageToken]).toEqual([3, undefined]);
  });

  it.each([
    [{ pageSize: 0 }, ['pageSize']],
    [{ pageSize: 101 }, ['pageSize']],
    [{ pageToken: 'not-a-token' }, ['pageToken']],
    [{ liveOnly: 'yes' }, ['liveOnly']],
    [{ pageSize: -5, pageToken: '!!' }, ['pageSize', 'pageToken']],
  ])('%j is -32602 with violations on %j', async (params, fields) => {
    const { endpoint } = await start();
    const answer = await list(endpoint, { taskId: 'task-1', ...params });
    const error = answer.error as { code: number; data: Json[] };
    expect(error.code).toBe(-32602);
    const badRequest = error.data.find((d) => String(d['@type']).endsWith('BadRequest'));
    expect(((badRequest?.fieldViolations ?? []) as Json[]).map((v) => v.field)).toEqual(fields);
  });

  it('the client gets the typed error back', async () => {
    const { client } = await start();
    const error = (await client
      .listTaskReminders({ taskId: 'task-1', pageToken: 'forged' })
      .catch((e: unknown) => e)) as ReminderError;
    expect([error.code, error.fieldViolations.map((v) => v.field)]).toEqual([
      'INVALID_ARGUMENT',
      ['pageToken'],
    ]);
  });
});
