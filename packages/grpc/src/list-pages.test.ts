import { createReminderService } from '@a2a-reminders/core';
import { describeClientPages, seedReminderPages } from '@a2a-reminders/test-support';
import { afterEach } from 'vitest';
import { createGrpcReminderClient } from './grpc-reminder-client.js';
import { startTestServer, TaskState } from './testing/test-server.js';

// R49 over gRPC: page_size (proto3 optional, so an explicit 0 is sent and
// refused), page_token and live_only on the request, next_page_token on the
// response, through the Connect client and the grpc-js server.

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describeClientPages('gRPC', async () => {
  const server = await startTestServer({
    reminders: ({ taskStore, eventBusManager }) =>
      createReminderService({ taskStore, eventBusManager }),
  });
  const client = createGrpcReminderClient({ baseUrl: server.baseUrl });
  closers.push(async () => {
    client.close();
    await server.close();
  });
  await server.seedTask('task-1', TaskState.TASK_STATE_WORKING);
  await seedReminderPages(client);
  return client;
});
