import type { ReminderError } from '@a2a-reminders/core';
import { bindingServersPerTest, describeReminderClient } from '@a2a-reminders/test-support';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { createJsonRpcReminderClient } from './json-rpc-client.js';
import { jsonRpcArm } from './testing/app.js';

describeReminderClient(jsonRpcArm, /HTTP 404 without a JSON-RPC response/);

const servers = bindingServersPerTest(jsonRpcArm);

describe('createJsonRpcReminderClient', () => {
  it('turns a stock SDK endpoint (method not found) into a clear ReminderError', async () => {
    const app = express();
    app.post('/rpc', (_req, res) => {
      res.json({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Invalid method.' } });
    });
    const server = await servers.listen(app);
    const client = createJsonRpcReminderClient({ baseUrl: `${server.url}/rpc` });
    const error = await client.listTaskReminders({ taskId: 't' }).catch((e: unknown) => e);
    expect((error as ReminderError).code).toBe('UNIMPLEMENTED');
    expect((error as ReminderError).message).toMatch(/does not serve the task-reminders extension/);
  });
});
