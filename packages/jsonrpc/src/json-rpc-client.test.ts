import { ReminderError, TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import { ReminderState } from '@a2a-reminders/proto';
import { listen } from '@a2a-reminders/test-support';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createJsonRpcReminderClient } from './json-rpc-client.js';
import { startFakeServer } from './testing/app.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const reminder = { id: 'r1', body: 'check the budget' };

describe('createJsonRpcReminderClient', () => {
  it('sends A2A-Version and A2A-Extensions itself and returns typed responses', async () => {
    const server = await startFakeServer();
    closers.push(server.close);
    const client = createJsonRpcReminderClient({
      baseUrl: server.endpoint,
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
    const client = createJsonRpcReminderClient({
      baseUrl: server.endpoint,
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
      const client = createJsonRpcReminderClient({
        baseUrl: server.endpoint,
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
    const client = createJsonRpcReminderClient({ baseUrl: `${server.url}/rpc` });
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
    const client = createJsonRpcReminderClient({ baseUrl: `${server.url}/rpc` });
    const error = await client.listTaskReminders({ taskId: 't' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReminderError);
    expect((error as ReminderError).code).toBe('UNIMPLEMENTED');
    expect((error as ReminderError).message).toMatch(/HTTP 404 without a JSON-RPC response/);
  });

  it('turns a stock SDK endpoint (method not found) into a clear ReminderError', async () => {
    const app = express();
    app.post('/rpc', (_req, res) => {
      res.json({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Invalid method.' } });
    });
    const server = await listen(app);
    closers.push(server.close);
    const client = createJsonRpcReminderClient({ baseUrl: `${server.url}/rpc` });
    const error = await client.listTaskReminders({ taskId: 't' }).catch((e: unknown) => e);
    expect((error as ReminderError).code).toBe('UNIMPLEMENTED');
    expect((error as ReminderError).message).toMatch(/does not serve the task-reminders extension/);
  });

  it('turns a plain 401 from auth middleware into UNAUTHENTICATED', async () => {
    const app = express();
    app.use((_req, res) => {
      res.status(401).send('Unauthorized');
    });
    const server = await listen(app);
    closers.push(server.close);
    const client = createJsonRpcReminderClient({ baseUrl: `${server.url}/rpc` });
    const error = await client.listTaskReminders({ taskId: 't' }).catch((e: unknown) => e);
    expect((error as ReminderError).code).toBe('UNAUTHENTICATED');
  });

  it('turns an unreachable server into a ReminderError', async () => {
    const server = await listen(express());
    await server.close();
    const client = createJsonRpcReminderClient({ baseUrl: `${server.url}/rpc` });
    const error = await client.listTaskReminders({ taskId: 't' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReminderError);
    expect((error as ReminderError).message).toMatch(/could not reach/);
  });
});
