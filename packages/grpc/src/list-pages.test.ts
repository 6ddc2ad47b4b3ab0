import type { ReminderError } from '@a2a-reminders/core';
import { createReminderService, reminderPages } from '@a2a-reminders/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GrpcReminderClient } from './grpc-reminder-client.js';
import { createGrpcReminderClient } from './grpc-reminder-client.js';
import type { TestServer } from './testing/test-server.js';
import { startTestServer, TaskState } from './testing/test-server.js';

// R49 over gRPC: page_size (proto3 optional, so an explicit 0 is sent and
// refused), page_token and live_only on the request, next_page_token on the
// response, through the Connect client and the grpc-js server.

describe('gRPC ListTaskReminders pages (R49)', () => {
  let server: TestServer;
  let client: GrpcReminderClient;

  beforeAll(async () => {
    server = await startTestServer({
      reminders: ({ taskStore, eventBusManager }) =>
        createReminderService({ taskStore, eventBusManager }),
    });
    client = createGrpcReminderClient({ baseUrl: server.baseUrl });
    await server.seedTask('task-1', TaskState.TASK_STATE_WORKING);
    for (let i = 0; i < 5; i += 1) {
      await client.injectTaskReminder({ taskId: 'task-1', reminder: { id: `a${i}`, body: 'b' } });
    }
    await client.cancelTaskReminder({ taskId: 'task-1', reminderId: 'a1' });
  });
  afterAll(async () => {
    client.close();
    await server.close();
  });

  it('the client pages with pageSize and pageToken and filters with liveOnly', async () => {
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

  it.each([
    [{ pageSize: 0 }, ['pageSize']],
    [{ pageSize: 101 }, ['pageSize']],
    [{ pageToken: 'not-a-token' }, ['pageToken']],
    [{ pageSize: -1, pageToken: '%' }, ['pageSize', 'pageToken']],
  ])('%j is INVALID_ARGUMENT with violations on %j', async (fields, expected) => {
    const error = (await client
      .listTaskReminders({ taskId: 'task-1', ...fields })
      .catch((e: unknown) => e)) as ReminderError;
    expect([error.code, error.fieldViolations.map((v) => v.field)]).toEqual([
      'INVALID_ARGUMENT',
      expected,
    ]);
  });
});
