import { restHandler } from '@a2a-js/sdk/server/express';
import { TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import type { HttpBindingArm } from '@a2a-reminders/test-support';
import { startBindingServer } from '@a2a-reminders/test-support';
import { createRestReminderClient } from '../rest-client.js';
import { restFallback } from '../rest-fallback.js';
import type { RestReminderRouterOptions } from '../rest-router.js';
import { restHandlerWithReminders, restReminderRouter, sdkHandlerOptions } from '../rest-router.js';

type RestLimits = Pick<RestReminderRouterOptions, 'maxBodyBytes' | 'contextBuilder'>;

/** The REST binding for test-support's shared HTTP binding tests, mounted as its README does. */
export const restArm: HttpBindingArm<RestLimits> = {
  name: 'REST',
  path: '/a2a/rest',
  handlers: (options) => [restHandlerWithReminders(options)],
  fallback: restFallback,
  createClient: createRestReminderClient,
};

/** The same, as two middlewares: our router, then the SDK's restHandler. */
export const restRouterArm: HttpBindingArm<RestLimits> = {
  ...restArm,
  name: 'REST (router, then restHandler)',
  handlers: (options) => [restReminderRouter(options), restHandler(sdkHandlerOptions(options))],
};

/** The REST binding at /a2a/rest, mounted as its README does, with a fake service. */
export async function startFakeServer(overrides: RestLimits = {}) {
  const server = await startBindingServer(restArm, { service: 'fake', overrides });
  return { ...server, baseUrl: server.endpoint };
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
