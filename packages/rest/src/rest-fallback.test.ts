import { restHandler } from '@a2a-js/sdk/server/express';
import { TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import {
  createSdkStack,
  fakeReminders,
  headerUserBuilder,
  listen,
} from '@a2a-reminders/test-support';
import type { RequestHandler } from 'express';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { restFallback } from './rest-fallback.js';
import { restReminderRouter } from './rest-router.js';

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** A middleware that fails with an error naming this file, when asked by `x-boom`. */
const boom: RequestHandler = (req, _res, next) => {
  next(req.header('x-boom') ? new Error(`${import.meta.filename} exploded`) : undefined);
};

/** Our router, the SDK's handler and the fallback on one prefix; `x-boom` makes a middleware throw. */
async function start(): Promise<string> {
  const sdk = createSdkStack();
  const fake = fakeReminders(TASK_REMINDERS_EXTENSION_URI);
  const common = { requestHandler: sdk.requestHandler, userBuilder: headerUserBuilder };
  const app = express();
  app.use(
    '/a2a/rest',
    boom,
    restReminderRouter({ reminders: fake.handler, ...common }),
    restHandler(common),
    ...restFallback(),
  );
  const server = await listen(app);
  close = server.close;
  return `${server.url}/a2a/rest`;
}

/** The google.rpc.Status body, after checking it is JSON and carries no stack trace or file path (W13). */
async function statusBody(response: Response): Promise<Record<string, unknown>> {
  const text = await response.text();
  expect(response.headers.get('content-type')).toMatch(/^application\/(a2a\+)?json/);
  expect(text).not.toMatch(/\n\s+at |node_modules|\.[jt]s:\d+|\/work\/|<html|<pre/i);
  expect(text).not.toContain(process.cwd());
  return (JSON.parse(text) as { error: Record<string, unknown> }).error;
}

describe('restFallback (W13)', () => {
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
    const base = await start();
    const response = await fetch(`${base}/tasks/t1`, { headers: { 'x-boom': '1' } });
    expect(response.status).toBe(500);
    expect(await statusBody(response)).toEqual({
      code: 500,
      status: 'INTERNAL',
      message: 'Internal error.',
      details: [],
    });
  });
});
