import {
  captureErrorLog,
  cleanErrorText,
  fallbackServersPerTest,
} from '@a2a-reminders/test-support';
import { describe, expect, it } from 'vitest';
import { restArm, restRouterArm } from './testing/app.js';

/** The google.rpc.Status body, after checking it is JSON and carries no stack trace or file path (W13). */
async function statusBody(response: Response): Promise<Record<string, unknown>> {
  const text = await cleanErrorText(response, /^application\/(a2a\+)?json/);
  return (JSON.parse(text) as { error: Record<string, unknown> }).error;
}

// Both ways of mounting it: one middleware (the README's), and ours before the SDK's.
for (const arm of [restArm, restRouterArm]) {
  const start = fallbackServersPerTest(arm);

  describe(`restFallback (W13), after ${arm.name}`, () => {
    it('answers a route nobody serves with a 404 Status body', async () => {
      const base = await start();
      for (const [method, path] of [
        ['GET', '/no/such/route'],
        ['DELETE', '/tasks/t1:injectReminder'],
        ['PUT', '/message:send'],
      ] as const) {
        const response = await fetch(`${base}${path}`, { method });
        expect(response.status).toBe(404);
        expect(await statusBody(response)).toMatchObject({ code: 404, status: 'NOT_FOUND' });
      }
    });

    it('answers a body encoding body-parser does not know with a Status body, not HTML', async () => {
      const base = await start();
      for (const path of ['/message:send', '/tasks/t1:injectReminder']) {
        const response = await fetch(`${base}${path}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'x-custom' },
          body: '{}',
        });
        expect(response.status).toBe(415);
        expect(await statusBody(response)).toMatchObject({
          code: 415,
          message: 'unsupported content encoding "x-custom"',
        });
      }
    });

    it('answers a body over the SDK limit on an SDK route with 413 JSON', async () => {
      const base = await start();
      const response = await fetch(`${base}/message:send`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ padding: 'x'.repeat(200 * 1024) }),
      });
      expect(response.status).toBe(413);
      expect(await statusBody(response)).toMatchObject({ code: 413, status: 'INVALID_ARGUMENT' });
    });

    it('answers a server fault with a bare INTERNAL that names no file', async () => {
      const logged = captureErrorLog();
      const base = await start();
      const response = await fetch(`${base}/tasks/t1`, { headers: { 'x-boom': '1' } });
      expect(response.status).toBe(500);
      expect(await statusBody(response)).toEqual({
        code: 500,
        status: 'INTERNAL',
        message: 'Internal error.',
        details: [],
      });
      // The operator gets the fault itself in the log.
      expect(logged).toEqual([
        [
          'HTTP+JSON request failed before dispatch:',
          expect.objectContaining({ message: expect.stringMatching(/exploded$/) }),
        ],
      ]);
    });
  });
}
