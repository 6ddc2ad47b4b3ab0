import { jsonRpcHandler } from '@a2a-js/sdk/server/express';
import { TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import {
  createSdkStack,
  fakeReminders,
  headerUserBuilder,
  listen,
} from '@a2a-reminders/test-support';
import express from 'express';
import type { JsonRpcReminderHandlerOptions } from '../json-rpc-handler.js';
import { jsonRpcReminderHandler } from '../json-rpc-handler.js';

/** Our middleware in front of the SDK's jsonRpcHandler at /a2a/jsonrpc, with a fake service. */
export async function startFakeServer(
  overrides: Partial<JsonRpcReminderHandlerOptions> = {},
  options: { jsonFirst?: boolean; jsonFirstLimit?: string } = {},
) {
  const sdk = createSdkStack();
  const fake = fakeReminders(TASK_REMINDERS_EXTENSION_URI);
  const app = express();
  const common = { requestHandler: sdk.requestHandler, userBuilder: headerUserBuilder };
  const ours = jsonRpcReminderHandler({ reminders: fake.handler, ...common, ...overrides });
  if (options.jsonFirst === true) {
    const limit = options.jsonFirstLimit ?? '100kb';
    app.use('/a2a/jsonrpc', express.json({ limit }), ours, jsonRpcHandler(common));
  } else {
    app.use('/a2a/jsonrpc', ours, jsonRpcHandler(common));
  }
  const server = await listen(app);
  return { ...sdk, ...fake, ...server, endpoint: `${server.url}/a2a/jsonrpc` };
}

/** Raw JSON-RPC POST with the headers a 1.0 client with the extension sends. */
export async function post(
  endpoint: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; json: Record<string, unknown> }> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'A2A-Version': '1.0',
      'A2A-Extensions': TASK_REMINDERS_EXTENSION_URI,
      ...headers,
    },
    body,
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    json: JSON.parse(text) as Record<string, unknown>,
  };
}
