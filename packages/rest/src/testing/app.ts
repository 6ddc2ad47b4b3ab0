import { restHandler } from '@a2a-js/sdk/server/express';
import { TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import {
  createSdkStack,
  fakeReminders,
  headerUserBuilder,
  listen,
} from '@a2a-reminders/test-support';
import express from 'express';
import type { RestReminderRouterOptions } from '../rest-router.js';
import { restReminderRouter } from '../rest-router.js';

/** Our router in front of the SDK's restHandler at /a2a/rest, with a fake service. */
export async function startFakeServer(overrides: Partial<RestReminderRouterOptions> = {}) {
  const sdk = createSdkStack();
  const fake = fakeReminders(TASK_REMINDERS_EXTENSION_URI);
  const app = express();
  const common = { requestHandler: sdk.requestHandler, userBuilder: headerUserBuilder };
  app.use(
    '/a2a/rest',
    restReminderRouter({ reminders: fake.handler, ...common, ...overrides }),
    restHandler(common),
  );
  const server = await listen(app);
  return { ...sdk, ...fake, ...server, baseUrl: `${server.url}/a2a/rest` };
}

/** Raw HTTP call with the headers a 1.0 client with the extension sends. */
export async function call(
  method: string,
  url: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; json: Record<string, unknown> }> {
  const response = await fetch(url, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      'A2A-Version': '1.0',
      'A2A-Extensions': TASK_REMINDERS_EXTENSION_URI,
      ...headers,
    },
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    json: JSON.parse(text) as Record<string, unknown>,
  };
}
