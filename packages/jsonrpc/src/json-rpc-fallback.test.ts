import { jsonRpcHandler } from '@a2a-js/sdk/server/express';
import { ReminderError, TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import {
  createSdkStack,
  fakeReminders,
  headerUserBuilder,
  listen,
} from '@a2a-reminders/test-support';
import type { RequestHandler } from 'express';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createJsonRpcReminderClient } from './json-rpc-client.js';
import { jsonRpcFallback } from './json-rpc-fallback.js';
import { jsonRpcReminderHandler } from './json-rpc-handler.js';

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** A middleware that fails with an error naming this file, when asked by `x-boom`. */
const boom: RequestHandler = (req, _res, next) => {
  next(req.header('x-boom') ? new Error(`${import.meta.filename} exploded`) : undefined);
};

/** Ours, the SDK's handler and the fallback on one path; `x-boom` makes a middleware throw. */
async function start(): Promise<string> {
  const sdk = createSdkStack();
  const fake = fakeReminders(TASK_REMINDERS_EXTENSION_URI);
  const common = { requestHandler: sdk.requestHandler, userBuilder: headerUserBuilder };
  const app = express();
  app.use(
    '/a2a/jsonrpc',
    boom,
    jsonRpcReminderHandler({ reminders: fake.handler, ...common }),
    jsonRpcHandler(common),
    ...jsonRpcFallback(),
  );
  const server = await listen(app);
  close = server.close;
  return `${server.url}/a2a/jsonrpc`;
}

/** The answer as JSON, after checking it is JSON and carries no stack trace or file path (W13). */
async function cleanJson(response: Response): Promise<Record<string, unknown>> {
  const text = await response.text();
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(text).not.toMatch(/\n\s+at |node_modules|\.[jt]s:\d+|\/work\/|<html|<pre/i);
  expect(text).not.toContain(process.cwd());
  return JSON.parse(text) as Record<string, unknown>;
}

describe('jsonRpcFallback (W13)', () => {
  it('answers a body encoding body-parser does not know with a JSON-RPC error, not HTML', async () => {
    const endpoint = await start();
    for (const method of ['PUT', 'POST']) {
      const response = await fetch(endpoint, {
        method,
        headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'x-custom' },
        body: '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}',
      });
      expect(response.status).toBe(415);
      expect(await cleanJson(response)).toMatchObject({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'unsupported content encoding "x-custom"' },
      });
    }
  });

  it('answers other HTTP methods with 405 and Allow: POST', async () => {
    const endpoint = await start();
    // OPTIONS is no error: express's router answers it with the Allow header itself.
    for (const method of ['GET', 'DELETE', 'PATCH', 'PUT']) {
      const response = await fetch(endpoint, { method });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
      expect(await cleanJson(response)).toMatchObject({ error: { code: -32600 } });
    }
  });

  it('answers a sub-path with 404 and -32601, which our client reports as UNIMPLEMENTED', async () => {
    const endpoint = await start();
    const response = await fetch(`${endpoint}/elsewhere`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(404);
    expect(await cleanJson(response)).toMatchObject({ error: { code: -32601 } });
    const client = createJsonRpcReminderClient({ baseUrl: `${endpoint}/elsewhere` });
    const error = await client.listTaskReminders({ taskId: 't' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReminderError);
    expect((error as ReminderError).code).toBe('UNIMPLEMENTED');
  });

  it('answers a body over the SDK limit on a route only the SDK reads with 413 JSON', async () => {
    const endpoint = await start();
    const response = await fetch(endpoint, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ padding: 'x'.repeat(200 * 1024) }),
    });
    expect(response.status).toBe(413);
    expect(await cleanJson(response)).toMatchObject({ error: { code: -32600 } });
  });

  it('answers a server fault with a bare -32603 that names no file', async () => {
    const endpoint = await start();
    const response = await fetch(endpoint, { method: 'POST', headers: { 'x-boom': '1' } });
    expect(response.status).toBe(500);
    expect(await cleanJson(response)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32603, message: 'Internal error.' },
    });
  });
});
