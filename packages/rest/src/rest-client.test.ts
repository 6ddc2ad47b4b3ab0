import { restHandler } from '@a2a-js/sdk/server/express';
import { ReminderError } from '@a2a-reminders/core';
import {
  bindingServersPerTest,
  createSdkStack,
  describeReminderClient,
  headerUserBuilder,
} from '@a2a-reminders/test-support';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { createRestReminderClient } from './rest-client.js';
import { restArm } from './testing/app.js';

describeReminderClient(restArm, /HTTP 404 without a google.rpc.Status body/);

const servers = bindingServersPerTest(restArm);

describe('createRestReminderClient', () => {
  it('turns a stock SDK server without the extension into a clear ReminderError', async () => {
    const sdk = createSdkStack();
    const app = express();
    const common = { requestHandler: sdk.requestHandler, userBuilder: headerUserBuilder };
    app.use('/a2a/rest', restHandler(common));
    const server = await servers.listen(app);
    const client = createRestReminderClient({ baseUrl: `${server.url}/a2a/rest` });
    const error = await client
      .injectTaskReminder({ taskId: 't', reminder: { id: 'r', body: 'b' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReminderError);
    expect((error as ReminderError).code).toBe('UNIMPLEMENTED');
    expect((error as ReminderError).message).toMatch(
      /HTTP 404 .*does it serve the task-reminders extension/,
    );
  });

  it('uses the /{tenant} form when the request has a tenant', async () => {
    const server = await servers.start({ service: 'fake' });
    const client = createRestReminderClient({ baseUrl: `${server.endpoint}/` });
    await client.cancelTaskReminder({ tenant: 'acme', taskId: 'a/b', reminderId: 'r:1' });
    expect(server.calls.map((c) => [c.tenant, c.request.taskId, c.request])).toMatchObject([
      ['acme', 'a/b', { reminderId: 'r:1' }],
    ]);
  });
});
