import { restHandler } from '@a2a-js/sdk/server/express';
import { ReminderError, TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import { ReminderState } from '@a2a-reminders/proto';
import { createSdkStack, headerUserBuilder, listen } from '@a2a-reminders/test-support';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createRestReminderClient } from './rest-client.js';
import { startFakeServer } from './testing/app.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const reminder = { id: 'r1', body: 'check the budget' };

describe('createRestReminderClient', () => {
  it('sends A2A-Version and A2A-Extensions itself and returns typed responses', async () => {
    const server = await startFakeServer();
    closers.push(server.close);
    const client = createRestReminderClient({
      baseUrl: server.baseUrl,
      headers: { 'x-user': 'alice' },
    });
    const injected = await client.injectTaskReminder({ taskId: 't1', tenant: 'acme', reminder });
    expect(injected.record?.state).toBe(ReminderState.PENDING);
    expect(injected.record?.reminder?.body).toBe('check the budget');
    const listed = await client.listTaskReminders(
      { taskId: 't1' },
      { headers: { 'x-user': 'bob' } },
    );
    expect(listed.reminders.map((r) => r.state)).toEqual([ReminderState.ACTIVE]);
    const cancelled = await client.cancelTaskReminder({ taskId: 't1', reminderId: 'r1' });
    expect(cancelled.record?.state).toBe(ReminderState.CANCELLED);
    expect(server.calls.map((c) => [c.method, c.userName, c.tenant])).toEqual([
      ['injectTaskReminder', 'alice', 'acme'],
      ['listTaskReminders', 'bob', undefined],
      ['cancelTaskReminder', 'alice', undefined],
    ]);
    expect(server.calls[0]?.requestedExtensions).toEqual([TASK_REMINDERS_EXTENSION_URI]);
  });

  it('keeps extensions the caller activates next to its own', async () => {
    const server = await startFakeServer();
    closers.push(server.close);
    const client = createRestReminderClient({
      baseUrl: server.baseUrl,
      headers: { 'A2A-Extensions': 'urn:other' },
    });
    await client.listTaskReminders({ taskId: 't1' });
    expect(server.calls[0]?.requestedExtensions).toEqual([
      'urn:other',
      TASK_REMINDERS_EXTENSION_URI,
    ]);
  });

  it.each([
    ['A2A-Extensions', 'a2a-extensions'],
    ['a2a-extensions', 'A2A-Extensions'],
  ])(
    'keeps client (%s) and per-call (%s) extensions, adding the URI once (W6)',
    async (clientName, callName) => {
      const server = await startFakeServer();
      closers.push(server.close);
      const client = createRestReminderClient({
        baseUrl: server.baseUrl,
        headers: { [clientName]: 'urn:client' },
      });
      await client.listTaskReminders({ taskId: 't1' }, { headers: { [callName]: 'urn:call' } });
      await client.listTaskReminders(
        { taskId: 't1' },
        { headers: { [callName]: `urn:call,${TASK_REMINDERS_EXTENSION_URI}` } },
      );
      expect(server.calls.map((c) => c.requestedExtensions)).toEqual([
        ['urn:client', 'urn:call', TASK_REMINDERS_EXTENSION_URI],
        ['urn:client', 'urn:call', TASK_REMINDERS_EXTENSION_URI],
      ]);
    },
  );

  it('rejects with the signal reason when aborted', async () => {
    const app = express();
    app.post('/rpc', () => {
      // Never answers: only the abort can end the call.
    });
    const server = await listen(app);
    closers.push(server.close);
    const client = createRestReminderClient({ baseUrl: `${server.url}/rpc` });
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    const call = client.listTaskReminders({ taskId: 't' }, { signal: controller.signal });
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
  });

  it('turns a server without the extension into a clear ReminderError', async () => {
    const app = express();
    app.use((_req, res) => {
      res.status(404).type('html').send('<h1>Not Found</h1>');
    });
    const server = await listen(app);
    closers.push(server.close);
    const client = createRestReminderClient({ baseUrl: `${server.url}/rpc` });
    const error = await client.listTaskReminders({ taskId: 't' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReminderError);
    expect((error as ReminderError).code).toBe('UNIMPLEMENTED');
    expect((error as ReminderError).message).toMatch(/HTTP 404 without a google.rpc.Status body/);
  });

  it('turns a stock SDK server without the extension into a clear ReminderError', async () => {
    const sdk = createSdkStack();
    const app = express();
    const common = { requestHandler: sdk.requestHandler, userBuilder: headerUserBuilder };
    app.use('/a2a/rest', restHandler(common));
    const server = await listen(app);
    closers.push(server.close);
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
    const server = await startFakeServer();
    closers.push(server.close);
    const client = createRestReminderClient({ baseUrl: `${server.baseUrl}/` });
    await client.cancelTaskReminder({ tenant: 'acme', taskId: 'a/b', reminderId: 'r:1' });
    expect(server.calls.map((c) => [c.tenant, c.request.taskId, c.request])).toMatchObject([
      ['acme', 'a/b', { reminderId: 'r:1' }],
    ]);
  });

  it('turns a plain 401 from auth middleware into UNAUTHENTICATED', async () => {
    const app = express();
    app.use((_req, res) => {
      res.status(401).send('Unauthorized');
    });
    const server = await listen(app);
    closers.push(server.close);
    const client = createRestReminderClient({ baseUrl: `${server.url}/rpc` });
    const error = await client.listTaskReminders({ taskId: 't' }).catch((e: unknown) => e);
    expect((error as ReminderError).code).toBe('UNAUTHENTICATED');
  });

  it('turns an unreachable server into a ReminderError', async () => {
    const server = await listen(express());
    await server.close();
    const client = createRestReminderClient({ baseUrl: `${server.url}/rpc` });
    const error = await client.listTaskReminders({ taskId: 't' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReminderError);
    expect((error as ReminderError).message).toMatch(/could not reach/);
  });
});
