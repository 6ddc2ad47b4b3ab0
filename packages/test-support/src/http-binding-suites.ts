import type { AgentCard } from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import type { AgentExecutor, ServerCallContextBuilder } from '@a2a-js/sdk/server';
import { AgentEvent, defaultServerCallContextBuilder } from '@a2a-js/sdk/server';
import type { ReminderClient } from '@a2a-reminders/core';
import {
  ReminderError,
  reminderErrorCodes,
  reminderPages,
  TASK_REMINDERS_EXTENSION_URI,
} from '@a2a-reminders/core';
import { ReminderState } from '@a2a-reminders/proto';
import type { RequestHandler } from 'express';
import express from 'express';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { listen } from './express-server.js';
import { sampleError } from './fake-reminders.js';
import type { BindingServer, HttpBindingArm } from './http-binding-arm.js';
import { bindingServersPerTest } from './http-binding-arm.js';
import { saveTask, testAgentCard } from './sdk-stack.js';

// Tests of what the HTTP bindings do alike, written once and run by each
// binding's own test files with its arm. What only one wire format says (a
// JSON-RPC code, a REST status body) stays in that binding's tests.

/** The ReminderError a call rejected with, or `undefined` if it resolved. */
export const failureOf = (promise: Promise<unknown>): Promise<ReminderError | undefined> =>
  promise.then(
    () => undefined,
    (e: unknown) => e as ReminderError,
  );

/**
 * The client contract every binding's client keeps (W6, W9, R39): typed
 * responses, the extension activated next to the caller's, aborts, and the
 * error of a server without the extension, whose message (`notServing`) names
 * the binding's envelope.
 */
export function describeReminderClient<L extends object>(
  arm: HttpBindingArm<L>,
  notServing: RegExp,
): void {
  const reminder = { id: 'r1', body: 'check the budget' };

  describe(`${arm.name} client`, () => {
    const servers = bindingServersPerTest(arm);

    it('sends A2A-Version and A2A-Extensions itself and returns typed responses', async () => {
      const server = await servers.start({ service: 'fake' });
      const client = arm.createClient({
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
      const server = await servers.start({ service: 'fake' });
      const client = arm.createClient({
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
        const server = await servers.start({ service: 'fake' });
        const client = arm.createClient({
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
      const server = await servers.listen(app);
      const client = arm.createClient({ baseUrl: `${server.url}/rpc` });
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
      const server = await servers.listen(app);
      const client = arm.createClient({ baseUrl: `${server.url}/rpc` });
      const error = await client.listTaskReminders({ taskId: 't' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ReminderError);
      expect((error as ReminderError).code).toBe('UNIMPLEMENTED');
      expect((error as ReminderError).message).toMatch(notServing);
    });

    it('turns a plain 401 from auth middleware into UNAUTHENTICATED', async () => {
      const app = express();
      app.use((_req, res) => {
        res.status(401).send('Unauthorized');
      });
      const server = await servers.listen(app);
      const client = arm.createClient({ baseUrl: `${server.url}/rpc` });
      const error = await client.listTaskReminders({ taskId: 't' }).catch((e: unknown) => e);
      expect((error as ReminderError).code).toBe('UNAUTHENTICATED');
    });

    it('turns an unreachable server into a ReminderError naming the URL and the cause', async () => {
      const server = await listen(express());
      await server.close();
      const client = arm.createClient({ baseUrl: `${server.url}/rpc` });
      const error = await client.listTaskReminders({ taskId: 't' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ReminderError);
      expect((error as ReminderError).message).toMatch(/could not reach/);
      expect((error as ReminderError).message).toContain(`${server.url}/rpc`);
      expect((error as ReminderError).message).toMatch(/ECONNREFUSED/);
    });
  });
}

/**
 * The binding with the real core behind it, through its client: the round
 * trip, R8's paths, R10's terminal task, R7's scope and R5's authentication.
 * Each binding checks the wire form of the same answers in its own tests.
 */
export function describeCoreRoundTrip<L extends object>(arm: HttpBindingArm<L>): void {
  describe(`${arm.name} binding with the real core`, () => {
    const servers = bindingServersPerTest(arm);

    it('injects, lists and cancels, idempotently', async () => {
      const { taskStore, client } = await servers.start();
      await saveTask(taskStore, { id: 'task-1', state: TaskState.TASK_STATE_WORKING });
      const request = {
        taskId: 'task-1',
        reminder: { id: 'r1', body: 'Budget 80% used.', ttlTurns: 2 },
      };
      const first = await client.injectTaskReminder(request);
      expect(first.record?.state).toBe(ReminderState.PENDING);
      expect(first.record?.reminder?.ttlTurns).toBe(2);
      expect(first.taskState).toBe('TASK_STATE_WORKING');
      const again = await client.injectTaskReminder(request);
      expect(again).toEqual(first);
      const listed = await client.listTaskReminders({ taskId: 'task-1' });
      expect(listed.reminders.map((r) => r.reminder?.id)).toEqual(['r1']);
      const cancelled = await client.cancelTaskReminder({ taskId: 'task-1', reminderId: 'r1' });
      expect(cancelled.record?.state).toBe(ReminderState.CANCELLED);
    });

    it('reports invalid fields with their paths', async () => {
      const { taskStore, client } = await servers.start();
      await saveTask(taskStore, { id: 'task-1', state: TaskState.TASK_STATE_WORKING });
      const error = await failureOf(
        client.injectTaskReminder({
          taskId: 'task-1',
          reminder: { id: 'r1', body: 'b', ttlTurns: 0 },
        }),
      );
      expect(error?.code).toBe('INVALID_ARGUMENT');
      expect(error?.fieldViolations.map((v) => v.field)).toContain('reminder.ttlTurns');
    });

    it('refuses a terminal task with TASK_TERMINAL', async () => {
      const { taskStore, client } = await servers.start();
      await saveTask(taskStore, { id: 'done', state: TaskState.TASK_STATE_COMPLETED });
      const error = await failureOf(
        client.injectTaskReminder({ taskId: 'done', reminder: { id: 'r1', body: 'b' } }),
      );
      expect(error?.code).toBe('TASK_TERMINAL');
    });

    it('reaches only tasks the same caller could GetTask (user and tenant scope)', async () => {
      const { taskStore, endpoint } = await servers.start();
      await saveTask(taskStore, { id: 'mine', state: TaskState.TASK_STATE_WORKING, user: 'alice' });
      await saveTask(taskStore, {
        id: 'acme-task',
        state: TaskState.TASK_STATE_WORKING,
        tenant: 'acme',
      });
      const alice = arm.createClient({ baseUrl: endpoint, headers: { 'x-user': 'alice' } });
      const bob = arm.createClient({ baseUrl: endpoint, headers: { 'x-user': 'bob' } });
      const anonymous = arm.createClient({ baseUrl: endpoint });
      const reminder = { id: 'r1', body: 'b' };

      await expect(alice.injectTaskReminder({ taskId: 'mine', reminder })).resolves.toBeDefined();
      expect((await failureOf(bob.injectTaskReminder({ taskId: 'mine', reminder })))?.code).toBe(
        'TASK_NOT_FOUND',
      );
      await expect(
        anonymous.injectTaskReminder({ tenant: 'acme', taskId: 'acme-task', reminder }),
      ).resolves.toBeDefined();
      expect(
        (await failureOf(anonymous.injectTaskReminder({ taskId: 'acme-task', reminder })))?.code,
      ).toBe('TASK_NOT_FOUND');
    });

    it('answers an unauthenticated caller with UNAUTHENTICATED when the service requires authentication', async () => {
      const { taskStore, client } = await servers.start({ requireAuthentication: true });
      await saveTask(taskStore, { id: 'task-1', state: TaskState.TASK_STATE_WORKING });
      const error = await failureOf(client.listTaskReminders({ taskId: 'task-1' }));
      expect(error?.code).toBe('UNAUTHENTICATED');
    });
  });
}

/**
 * R49 through a client of any binding: pages by pageSize and pageToken,
 * liveOnly, and the typed error of a bad page request. `start` gives a client
 * whose task-1 holds a0..a4 with a1 cancelled ({@link seedReminderPages}).
 */
export function describeClientPages(name: string, start: () => Promise<ReminderClient>): void {
  describe(`${name} client pages (R49)`, () => {
    it('the client pages with pageSize and pageToken and filters with liveOnly', async () => {
      const client = await start();
      const pages: unknown[][] = [];
      for await (const page of reminderPages(client, { taskId: 'task-1', pageSize: 2 })) {
        pages.push(page.reminders.map((r) => r.reminder?.id));
      }
      expect(pages).toEqual([['a0', 'a1'], ['a2', 'a3'], ['a4']]);
      const live = await client.listTaskReminders({
        taskId: 'task-1',
        liveOnly: true,
        pageSize: 3,
      });
      expect(live.reminders.map((r) => r.reminder?.id)).toEqual(['a0', 'a2', 'a3']);
      const rest = await client.listTaskReminders({
        taskId: 'task-1',
        liveOnly: true,
        pageToken: live.nextPageToken,
      });
      expect([rest.reminders.map((r) => r.reminder?.id), rest.nextPageToken]).toEqual([['a4'], '']);
      const all = await client.listTaskReminders({ taskId: 'task-1', liveOnly: true });
      expect(all.reminders.map((r) => r.reminder?.id)).toEqual(['a0', 'a2', 'a3', 'a4']);
      expect(all.nextPageToken).toBe('');
    });

    it.each([
      [{ pageSize: 0 }, ['pageSize']],
      [{ pageSize: 101 }, ['pageSize']],
      [{ pageToken: 'not-a-token' }, ['pageToken']],
      [{ pageToken: 'forged' }, ['pageToken']],
      [{ pageSize: -1, pageToken: '%' }, ['pageSize', 'pageToken']],
    ])('%j is INVALID_ARGUMENT with violations on %j', async (page, fields) => {
      const client = await start();
      const error = await failureOf(client.listTaskReminders({ taskId: 'task-1', ...page }));
      expect([error?.code, error?.fieldViolations.map((v) => v.field)]).toEqual([
        'INVALID_ARGUMENT',
        fields,
      ]);
    });
  });
}

/** Injects a0..a4 into task-1 (which must exist) and cancels a1: the pages R49's tests read. */
export async function seedReminderPages(client: ReminderClient): Promise<void> {
  for (let i = 0; i < 5; i += 1) {
    await client.injectTaskReminder({ taskId: 'task-1', reminder: { id: `a${i}`, body: 'b' } });
  }
  await client.cancelTaskReminder({ taskId: 'task-1', reminderId: 'a1' });
}

/** A binding server whose task-1 holds the pages of {@link seedReminderPages}. */
export async function seedPages<S extends Pick<BindingServer, 'taskStore' | 'client'>>(
  server: S,
): Promise<S> {
  await saveTask(server.taskStore, { id: 'task-1', state: TaskState.TASK_STATE_WORKING });
  await seedReminderPages(server.client);
  return server;
}

/** What a binding's error tests check on its own wire (R39, W13). */
export interface WireErrorChecks {
  /** The raw answer to an inject that failed with `thrown`, in the binding's envelope (R39, R40). */
  readonly expectWire: (server: BindingServer, thrown: ReminderError) => Promise<void>;
  /** The raw answer to an inject that hit a server fault: a bare INTERNAL naming nothing (W13). */
  readonly expectHiddenFault: (server: BindingServer) => Promise<void>;
}

/**
 * R40 through the client: every code the service throws comes back as an
 * equal ReminderError, after `checks.expectWire` has seen the raw answer of
 * the same call; and a server fault reaches only the operator's log.
 */
export function describeErrorRoundTrip<L extends object>(
  arm: HttpBindingArm<L>,
  checks: WireErrorChecks,
): void {
  describe(`${arm.name} errors (R39, R40)`, () => {
    const servers = bindingServersPerTest(arm);
    /** What the binding logs for a server fault in InjectTaskReminder, with the fault (W13). */
    const logLine = (fault: unknown) => [`${arm.name} InjectTaskReminder failed:`, fault];

    it.each(reminderErrorCodes)('%s travels with its code, status and details', async (code) => {
      const logged = captureErrorLog();
      const server = await servers.start({ service: 'fake' });
      const thrown = sampleError(code);
      server.state.fail = thrown;
      await checks.expectWire(server, thrown);

      const failure = await server.client
        .injectTaskReminder({ taskId: 'task-1', reminder: { id: 'r1', body: 'b' } })
        .catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(ReminderError);
      const back = failure as ReminderError;
      expect(back.code).toBe(code);
      expect(back.message).toBe(thrown.message);
      expect(back.fieldViolations).toEqual(thrown.fieldViolations);
      // Metadata travels in ErrorInfo; a bare BadRequest carries only the violations.
      if (thrown.toStatusDetails().some((d) => d.$typeName === 'google.rpc.ErrorInfo')) {
        expect(back.metadata).toEqual(thrown.metadata);
      }
      // INTERNAL is a server fault: logged for the operator, once per call;
      // so is an outage (R69), in one line naming the binding.
      if (code === 'UNAVAILABLE') {
        const outage = `InjectTaskReminder unavailable: ${thrown.message}`;
        expect(logged.map((args) => args.map(String).join(' ').replace(/^\S+ /, ''))).toEqual([
          outage,
          outage,
        ]);
      } else {
        expect(logged).toEqual(code === 'INTERNAL' ? [logLine(thrown), logLine(thrown)] : []);
      }
    });

    it('turns an unexpected exception into INTERNAL without leaking it', async () => {
      const logged = captureErrorLog();
      const server = await servers.start({ service: 'fake' });
      const fault = new Error('database password is hunter2');
      server.state.fail = fault;
      await checks.expectHiddenFault(server);
      // Only the operator's log has it.
      expect(logged).toEqual([logLine(fault)]);
    });
  });
}

/**
 * Captures `console.error` for the rest of the running test and returns its
 * calls: a server fault is logged on purpose, with its cause, while the
 * caller gets a bare INTERNAL (W13); a test that provokes one asserts the log
 * instead of printing it.
 */
export function captureErrorLog(): unknown[][] {
  const spy = vi.spyOn(console, 'error').mockImplementation(() => {});
  onTestFinished(() => spy.mockRestore());
  return spy.mock.calls;
}

/** A middleware that fails with an error naming a file, when asked by `x-boom` (W13 tests). */
export const boomOnRequest: RequestHandler = (req, _res, next) => {
  next(req.header('x-boom') ? new Error(`${import.meta.filename} exploded`) : undefined);
};

/**
 * Starts, per test, the binding with the fake service, `boomOnRequest` in front
 * of it and its fallback after it (W13 tests); resolves to the endpoint.
 */
export function fallbackServersPerTest<L extends object>(
  arm: HttpBindingArm<L>,
): () => Promise<string> {
  const servers = bindingServersPerTest(arm);
  return async () => {
    const server = await servers.start({
      service: 'fake',
      before: [boomOnRequest],
      fallback: true,
    });
    return server.endpoint;
  };
}

/**
 * A contextBuilder that records each call's `x-call` header, then builds the
 * SDK's default context: shows which calls a builder handed to a binding built.
 */
export function recordingContextBuilder(): {
  contextBuilder: ServerCallContextBuilder;
  seen: string[];
} {
  const seen: string[] = [];
  const contextBuilder: ServerCallContextBuilder = (options) => {
    seen.push(String(options.headers['x-call']));
    return defaultServerCallContextBuilder(options);
  };
  return { contextBuilder, seen };
}

/**
 * The text of an error answer after checking it is JSON of `contentType` and
 * carries no stack trace or file path (W13).
 */
export async function cleanErrorText(response: Response, contentType: RegExp): Promise<string> {
  const text = await response.text();
  expect(response.headers.get('content-type')).toMatch(contentType);
  expect(text).not.toMatch(/\n\s+at |node_modules|\.[jt]s:\d+|\/work\/|<html|<pre/i);
  expect(text).not.toContain(process.cwd());
  return text;
}

/** What a binding's README test gives {@link describeReadme}. */
export interface ReadmeUnderTest {
  /** The README's text. */
  readonly readme: string;
  /** The example file whose `// README:start` … `// README:end` region the README shows. */
  readonly example: string;
  /** The example's app factory, run with the test card and an agent that keeps its task open. */
  readonly createAgentApp: (card: AgentCard, executor: AgentExecutor) => express.Express;
  /** A stock SendMessage on the binding at `endpoint`, which returns the new task's id. */
  readonly sendMessage: (endpoint: string) => Promise<string>;
}

/** An agent that opens a WORKING task and leaves it open. */
const openTaskExecutor: AgentExecutor = {
  async execute(context, bus) {
    bus.publish(
      AgentEvent.task({
        id: context.taskId,
        contextId: context.contextId,
        status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: undefined },
        artifacts: [],
        history: [context.userMessage],
        metadata: undefined,
      }),
    );
    bus.finished();
  },
  cancelTask: async () => {},
};

/**
 * A binding's README says what runs: its mounting snippet is the example file
 * verbatim, its error table has a row per code, and the snippet serves a
 * stock SendMessage and the reminder client's inject on the same app.
 */
export function describeReadme<L extends object>(
  arm: HttpBindingArm<L>,
  docs: ReadmeUnderTest,
): void {
  describe('README', () => {
    it('shows the mounting code that this test runs, verbatim', () => {
      const region = docs.example.split('// README:start\n')[1]?.split('// README:end')[0];
      expect(region).toBeDefined();
      expect(docs.readme).toContain(`\`\`\`ts\n${region}\`\`\``);
    });

    it('lists every row of the error table', () => {
      for (const code of reminderErrorCodes) {
        expect(docs.readme).toMatch(new RegExp(`\\| \`${code}\` +\\|`));
      }
    });

    it('runs: a stock SendMessage creates a task, the client injects a reminder into it', async () => {
      const server = await listen(docs.createAgentApp(testAgentCard(), openTaskExecutor));
      try {
        const endpoint = `${server.url}${arm.path}`;
        const taskId = await docs.sendMessage(endpoint);
        const reminders = arm.createClient({
          baseUrl: endpoint,
          headers: { authorization: 'Bearer token' },
        });
        const { record } = await reminders.injectTaskReminder({
          taskId,
          reminder: {
            id: 'budget-80',
            body: 'Budget 80% used; wrap up.',
            ttlTurns: 3,
            dedupeKey: 'budget',
          },
        });
        expect(record?.state).toBe(ReminderState.PENDING);
        expect(record?.taskId).toBe(taskId);
      } finally {
        await server.close();
      }
    });
  });
}
