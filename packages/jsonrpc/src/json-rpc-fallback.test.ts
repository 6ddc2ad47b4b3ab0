import { ReminderError } from '@a2a-reminders/core';
import {
  captureErrorLog,
  cleanErrorText,
  fallbackServersPerTest,
} from '@a2a-reminders/test-support';
import { describe, expect, it } from 'vitest';
import { createJsonRpcReminderClient } from './json-rpc-client.js';
import { jsonRpcArm, jsonRpcTwoHandlersArm } from './testing/app.js';

/** The answer as JSON, after checking it is JSON and carries no stack trace or file path (W13). */
async function cleanJson(response: Response): Promise<Record<string, unknown>> {
  const text = await cleanErrorText(response, /^application\/json/);
  return JSON.parse(text) as Record<string, unknown>;
}

// Both ways of mounting it: one middleware (the README's), and ours before the SDK's.
for (const arm of [jsonRpcArm, jsonRpcTwoHandlersArm]) {
  const start = fallbackServersPerTest(arm);

  describe(`jsonRpcFallback (W13), after ${arm.name}`, () => {
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
      const logged = captureErrorLog();
      const endpoint = await start();
      const response = await fetch(endpoint, { method: 'POST', headers: { 'x-boom': '1' } });
      expect(response.status).toBe(500);
      expect(await cleanJson(response)).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32603, message: 'Internal error.' },
      });
      // The operator gets the fault itself in the log.
      expect(logged).toEqual([
        [
          'JSON-RPC request failed before dispatch:',
          expect.objectContaining({ message: expect.stringMatching(/exploded$/) }),
        ],
      ]);
    });
  });
}
