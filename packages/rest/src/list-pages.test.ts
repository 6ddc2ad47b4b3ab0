import { TaskState } from '@a2a-js/sdk';
import { restHandler } from '@a2a-js/sdk/server/express';
import type { ReminderError } from '@a2a-reminders/core';
import { createReminderService, reminderPages } from '@a2a-reminders/core';
import { createSdkStack, headerUserBuilder, listen, saveTask } from '@a2a-reminders/test-support';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createRestReminderClient } from './rest-client.js';
import { restReminderRouter } from './rest-router.js';
import { call } from './testing/app.js';

// R49 over HTTP+JSON: pageSize, pageToken and liveOnly are query parameters
// of GET /tasks/{taskId}/reminders (the google.api.http rule has no body).

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** The real core behind our router; task-1 holds a0..a4, a1 cancelled. */
async function start() {
  const sdk = createSdkStack();
  const reminders = createReminderService({
    taskStore: sdk.taskStore,
    eventBusManager: sdk.eventBusManager,
  });
  const common = { requestHandler: sdk.requestHandler, userBuilder: headerUserBuilder };
  const app = express();
  app.use('/a2a/rest', restReminderRouter({ ...common, reminders }), restHandler(common));
  const server = await listen(app);
  close = server.close;
  const endpoint = `${server.url}/a2a/rest`;
  const client = createRestReminderClient({ baseUrl: endpoint });
  await saveTask(sdk.taskStore, { id: 'task-1', state: TaskState.TASK_STATE_WORKING });
  for (let i = 0; i < 5; i += 1) {
    await client.injectTaskReminder({ taskId: 'task-1', reminder: { id: `a${i}`, body: 'b' } });
  }
  await client.cancelTaskReminder({ taskId: 'task-1', reminderId: 'a1' });
  return { endpoint, client };
}

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: unknown) => e as ReminderError,
  );

type Json = Record<string, unknown>;
const listedIds = (json: Json) =>
  ((json.reminders ?? []) as Json[]).map((r) => (r.reminder as Json).id);

describe('REST ListTaskReminders pages (R49)', () => {
  it('the client pages with pageSize and pageToken and filters with liveOnly', async () => {
    const { client } = await start();
    const pages: unknown[][] = [];
    for await (const page of reminderPages(client, { taskId: 'task-1', pageSize: 2 })) {
      pages.push(page.reminders.map((r) => r.reminder?.id));
    }
    expect(pages).toEqual([['a0', 'a1'], ['a2', 'a3'], ['a4']]);
    const live = await client.listTaskReminders({ taskId: 'task-1', liveOnly: true });
    expect(live.reminders.map((r) => r.reminder?.id)).toEqual(['a0', 'a2', 'a3', 'a4']);
    expect(live.nextPageToken).toBe('');
  });

  it('the query parameters reach the service, and nextPageToken comes back as JSON', async () => {
    const { endpoint } = await start();
    const url = `${endpoint}/tasks/task-1/reminders`;
    const first = await call('GET', `${url}?pageSize=2&liveOnly=true`);
    expect([first.status, listedIds(first.json)]).toEqual([200, ['a0', 'a2']]);
    const token = first.json.nextPageToken as string;
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    const rest = await call(
      'GET',
      `${url}?liveOnly=true&pageToken=${encodeURIComponent(token)}&pageSize=5`,
    );
    expect([rest.status, listedIds(rest.json), rest.json.nextPageToken]).toEqual([
      200,
      ['a3', 'a4'],
      undefined, // ProtoJSON omits the empty token: the last page
    ]);
    const all = await call('GET', `${url}?liveOnly=false`);
    expect(listedIds(all.json)).toEqual(['a0', 'a1', 'a2', 'a3', 'a4']);
  });

  it.each([
    ['pageSize=0', ['pageSize']],
    ['pageSize=101', ['pageSize']],
    ['pageSize=abc', ['pageSize']],
    ['pageSize=2&pageSize=3', ['pageSize']],
    ['pageToken=not-a-token', ['pageToken']],
    ['liveOnly=maybe', ['liveOnly']],
    ['pageSize=0&pageToken=x', ['pageSize', 'pageToken']],
  ])('?%s is a 400 INVALID_ARGUMENT on %j', async (query, fields) => {
    const { endpoint } = await start();
    const answer = await call('GET', `${endpoint}/tasks/task-1/reminders?${query}`);
    expect(answer.status).toBe(400);
    const error = answer.json.error as { status: string; details: Json[] };
    expect(error.status).toBe('INVALID_ARGUMENT');
    const badRequest = error.details.find((d) => String(d['@type']).endsWith('BadRequest'));
    const violations = (badRequest?.fieldViolations ?? []) as Json[];
    expect(violations.map((v) => v.field)).toEqual(fields);
    // The server keeps serving.
    expect((await call('GET', `${endpoint}/tasks/task-1/reminders`)).status).toBe(200);
  });

  it('the client gets the typed error back', async () => {
    const { client } = await start();
    const error = await failureOf(client.listTaskReminders({ taskId: 'task-1', pageSize: 0 }));
    expect([error?.code, error?.fieldViolations.map((v) => v.field)]).toEqual([
      'INVALID_ARGUMENT',
      ['pageSize'],
    ]);
  });
});
