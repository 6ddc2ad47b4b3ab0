import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import type { UserBuilder } from '@a2a-js/sdk/server/express';
import type {
  ReminderClient,
  ReminderClientOptions,
  ReminderRpcHandler,
} from '@a2a-reminders/core';
import { createReminderService, TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import express from 'express';
import { afterEach } from 'vitest';
import { headerUserBuilder, listen } from './express-server.js';
import { fakeReminders } from './fake-reminders.js';
import { createSdkStack } from './sdk-stack.js';

/** What every HTTP binding's handler takes: the SDK handler's options and the reminder service. */
export interface HttpBindingOptions {
  readonly reminders: ReminderRpcHandler;
  readonly requestHandler: A2ARequestHandler;
  readonly userBuilder: UserBuilder;
}

/**
 * One HTTP binding (JSON-RPC, REST) as the shared tests drive it, so a test
 * of what both bindings do is written once and run for each. `L` is what the
 * binding's handler takes besides {@link HttpBindingOptions} (its limits).
 */
export interface HttpBindingArm<L extends object = object> {
  /** For test names: `JSON-RPC`, `REST`. */
  readonly name: string;
  /** Where an app mounts it: the endpoint (JSON-RPC) or the prefix (REST). */
  readonly path: string;
  /** Our handler in front of the SDK's handler of the binding: one middleware, or ours then the SDK's. */
  handlers(options: HttpBindingOptions & L): RequestHandler[];
  /** The binding's fallback handlers, mounted last (W13). */
  fallback(): Array<RequestHandler | ErrorRequestHandler>;
  createClient(options: ReminderClientOptions): ReminderClient;
}

export interface BindingServerOptions<L extends object = object> {
  /** The reminder service behind the binding: core's own (default), or the recording fake. */
  readonly service?: 'core' | 'fake';
  /** Core's `requireAuthentication`. */
  readonly requireAuthentication?: boolean;
  /** Options of the binding's handler (limits). */
  readonly overrides?: L;
  /** Handlers mounted in front of ours, on the same path. */
  readonly before?: readonly RequestHandler[];
  /** Mounts the binding's fallback after the SDK's handler. */
  readonly fallback?: boolean;
}

/**
 * An express server with the binding (ours in front of the SDK's handler, as
 * the arm mounts them) at `arm.path`, and a client of it. Callers are
 * named by the `x-user` header; `calls` and `state` are the fake service's.
 */
export async function startBindingServer<L extends object>(
  arm: HttpBindingArm<L>,
  options: BindingServerOptions<L> = {},
) {
  const sdk = createSdkStack();
  const fake = fakeReminders(TASK_REMINDERS_EXTENSION_URI);
  const reminders =
    options.service === 'fake'
      ? fake.handler
      : createReminderService({
          taskStore: sdk.taskStore,
          eventBusManager: sdk.eventBusManager,
          ...(options.requireAuthentication === true ? { requireAuthentication: true } : {}),
        });
  const common = { reminders, requestHandler: sdk.requestHandler, userBuilder: headerUserBuilder };
  const app = express();
  app.use(
    arm.path,
    ...(options.before ?? []),
    ...arm.handlers({ ...common, ...options.overrides } as HttpBindingOptions & L),
    ...(options.fallback === true ? arm.fallback() : []),
  );
  const server = await listen(app);
  const endpoint = `${server.url}${arm.path}`;
  return {
    ...sdk,
    ...fake,
    ...server,
    endpoint,
    client: arm.createClient({ baseUrl: endpoint }),
  };
}

export type BindingServer = Awaited<ReturnType<typeof startBindingServer>>;

/**
 * Starts binding servers (and apps of the test's own) inside a test and
 * closes them after it; call it in a file or `describe` body.
 */
export function bindingServersPerTest<L extends object>(arm: HttpBindingArm<L>) {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });
  return {
    start: async (options: BindingServerOptions<L> = {}) => {
      const server = await startBindingServer(arm, options);
      closers.push(server.close);
      return server;
    },
    /** An app that is not ours (a stock SDK server, a plain 404). */
    listen: async (app: express.Express) => {
      const server = await listen(app);
      closers.push(server.close);
      return server;
    },
  };
}
