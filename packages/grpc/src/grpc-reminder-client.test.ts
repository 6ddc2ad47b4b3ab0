import { A2AService } from '@a2a-js/sdk/server/grpc';
import type { ReminderErrorCode } from '@a2a-reminders/core';
import {
  createReminderService,
  ReminderError,
  reminderErrorCodes,
  TASK_REMINDERS_EXTENSION_URI,
} from '@a2a-reminders/core';
import { ErrorInfoSchema, ReminderState } from '@a2a-reminders/proto';
import { isMessage } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reminderErrorFromConnectError } from './connect-error-to-reminder-error.js';
import type { GrpcReminderClient } from './grpc-reminder-client.js';
import { createGrpcReminderClient } from './grpc-reminder-client.js';
import { FakeReminderHandler } from './testing/fake-reminder-handler.js';
import type { TestServer } from './testing/test-server.js';
import { startTestServer, TaskState } from './testing/test-server.js';

/** The observable parts of a ReminderError, for equality across the wire. */
function shape(error: unknown) {
  expect(error).toBeInstanceOf(ReminderError);
  const e = error as ReminderError;
  return { code: e.code, message: e.message, metadata: e.metadata, violations: e.fieldViolations };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

/** An error of each code, with metadata only where the wire details can carry it back. */
function sampleError(code: ReminderErrorCode): ReminderError {
  const violations =
    code === 'INVALID_ARGUMENT' || code === 'REMINDER_ID_CONFLICT'
      ? [{ field: 'reminder.id', description: 'must match [A-Za-z0-9._:-]{1,128}' }]
      : [];
  const carriesInfo = new ReminderError(code, 'probe')
    .toStatusDetails()
    .some((d) => isMessage(d, ErrorInfoSchema));
  return new ReminderError(code, `failure ${code}`, {
    ...(carriesInfo ? { metadata: { taskId: 'task-1' } } : {}),
    fieldViolations: violations,
  });
}

describe('createGrpcReminderClient (Connect) against the grpc-js server, real core', () => {
  let server: TestServer;
  let client: GrpcReminderClient;

  beforeAll(async () => {
    server = await startTestServer({
      reminders: ({ taskStore, eventBusManager }) =>
        createReminderService({ taskStore, eventBusManager }),
    });
    client = createGrpcReminderClient({ baseUrl: server.baseUrl });
  });
  afterAll(async () => {
    client.close();
    await server.close();
  });

  it('injects, lists and cancels a reminder of a WORKING task', async () => {
    await server.seedTask('working', TaskState.TASK_STATE_WORKING);
    const injected = await client.injectTaskReminder({
      taskId: 'working',
      reminder: { id: 'r-1', body: 'Budget is 80% spent.', ttlTurns: 3, dedupeKey: 'budget' },
    });
    expect(injected.record?.taskId).toBe('working');
    expect(injected.record?.reminder?.id).toBe('r-1');
    expect(injected.record?.reminder?.ttlTurns).toBe(3);
    expect(injected.record?.state).toBe(ReminderState.PENDING);
    expect(injected.taskState).toBe('TASK_STATE_WORKING');

    const second = await client.injectTaskReminder({
      taskId: 'working',
      reminder: { id: 'r-2', body: 'Budget is 90% spent.', dedupeKey: 'budget' },
    });
    expect(second.displacedReminderIds).toEqual(['r-1']);

    const cancelled = await client.cancelTaskReminder({ taskId: 'working', reminderId: 'r-2' });
    expect(cancelled.record?.state).toBe(ReminderState.CANCELLED);

    const listed = await client.listTaskReminders({ taskId: 'working' });
    expect(listed.reminders.map((r) => [r.reminder?.id, r.state])).toEqual([
      ['r-1', ReminderState.DISPLACED],
      ['r-2', ReminderState.CANCELLED],
    ]);
  });

  it('activates the extension for a caller that sends its own a2a-extensions (W6)', async () => {
    await server.seedTask('with-extensions', TaskState.TASK_STATE_WORKING);
    const own = createGrpcReminderClient({
      baseUrl: server.baseUrl,
      headers: { 'a2a-extensions': 'urn:example:other' },
    });
    try {
      const injected = await own.injectTaskReminder(
        { taskId: 'with-extensions', reminder: { id: 'r-1', body: 'b' } },
        { headers: { 'A2A-Extensions': 'urn:example:third' } },
      );
      expect(injected.record?.state).toBe(ReminderState.PENDING);
    } finally {
      own.close();
    }
  });

  it('gets TASK_NOT_FOUND for a missing task and for a task of another caller alike', async () => {
    await server.seedTask('alices', TaskState.TASK_STATE_WORKING, {
      isAuthenticated: true,
      userName: 'alice',
    });
    const reminder = { id: 'r-1', body: 'hello' };
    const missing = await rejection(
      client.injectTaskReminder({ taskId: 'nobody-has-this', reminder }),
    );
    const foreign = await rejection(
      client.injectTaskReminder(
        { taskId: 'alices', reminder },
        {
          headers: { authorization: 'Bearer bob' },
        },
      ),
    );
    expect(shape(missing).code).toBe('TASK_NOT_FOUND');
    expect(shape(foreign).code).toBe('TASK_NOT_FOUND');
    const asAlice = await client.injectTaskReminder(
      { taskId: 'alices', reminder },
      { headers: { authorization: 'Bearer alice' } },
    );
    expect(asAlice.record?.taskId).toBe('alices');
  });

  it('gets TASK_TERMINAL for a completed task', async () => {
    await server.seedTask('done', TaskState.TASK_STATE_COMPLETED);
    const error = await rejection(
      client.injectTaskReminder({ taskId: 'done', reminder: { id: 'r-1', body: 'late' } }),
    );
    expect(shape(error).code).toBe('TASK_TERMINAL');
  });

  it('gets INVALID_ARGUMENT with field violations for a bad reminder', async () => {
    await server.seedTask('validating', TaskState.TASK_STATE_WORKING);
    const error = await rejection(
      client.injectTaskReminder({
        taskId: 'validating',
        reminder: { id: 'not valid!', body: '  ', ttlTurns: 0 },
      }),
    );
    const { code, violations } = shape(error);
    expect(code).toBe('INVALID_ARGUMENT');
    expect(violations.map((v) => v.field)).toEqual(
      expect.arrayContaining(['reminder.id', 'reminder.body', 'reminder.ttlTurns']),
    );
  });
});

describe('createGrpcReminderClient wire behaviour', () => {
  let server: TestServer;
  let fake: FakeReminderHandler;
  let client: GrpcReminderClient;

  beforeAll(async () => {
    server = await startTestServer({
      reminders: () => {
        fake = new FakeReminderHandler();
        return fake;
      },
    });
    client = createGrpcReminderClient({
      baseUrl: server.baseUrl,
      headers: { authorization: 'Bearer alice', 'x-trace': 'client' },
    });
  });
  afterAll(async () => {
    client.close();
    await server.close();
  });
  beforeEach(() => {
    fake.calls.length = 0;
    fake.failWith = undefined;
  });

  it('sends A2A-Version 1.0, activates the extension and merges headers, per call winning', async () => {
    await client.listTaskReminders({ taskId: 'task-1' }, { headers: { 'x-trace': 'call' } });
    const context = fake.calls[0]?.context;
    expect(context?.requestedVersion).toBe('1.0');
    expect(context?.requestedExtensions).toEqual([TASK_REMINDERS_EXTENSION_URI]);
    expect(context?.user?.userName).toBe('alice');
    const headers = context?.state.get('headers') as Record<string, string> | undefined;
    expect(headers?.['x-trace']).toBe('call');
  });

  it.each([
    ['A2A-Extensions', 'a2a-extensions'],
    ['a2a-extensions', 'A2A-Extensions'],
  ])(
    'keeps the caller’s extensions (client %s, call %s) and adds the URI (W6)',
    async (clientName, callName) => {
      const own = createGrpcReminderClient({
        baseUrl: server.baseUrl,
        headers: { authorization: 'Bearer alice', [clientName]: 'urn:client' },
      });
      try {
        await own.listTaskReminders({ taskId: 'task-1' });
        await own.listTaskReminders({ taskId: 'task-1' }, { headers: { [callName]: 'urn:call' } });
      } finally {
        own.close();
      }
      expect(fake.calls.map((c) => c.context.requestedExtensions)).toEqual([
        ['urn:client', TASK_REMINDERS_EXTENSION_URI],
        ['urn:client', 'urn:call', TASK_REMINDERS_EXTENSION_URI],
      ]);
    },
  );

  it.each(reminderErrorCodes)('turns %s back into an equal ReminderError', async (code) => {
    const sent = sampleError(code);
    fake.failWith = sent;
    const received = await rejection(
      client.injectTaskReminder({ taskId: 'task-1', reminder: { id: 'r-1', body: 'b' } }),
    );
    expect(shape(received)).toEqual(shape(sent));
  });

  it('rejects with the abort reason when the signal aborts', async () => {
    const reason = new Error('caller gave up');
    const error = await rejection(
      client.listTaskReminders({ taskId: 'task-1' }, { signal: AbortSignal.abort(reason) }),
    );
    expect(error).toBe(reason);
  });
});

describe('reminderErrorFromConnectError', () => {
  it('falls back to the inverse status table when no details name the code', () => {
    const notFound = reminderErrorFromConnectError(new ConnectError('gone', Code.NotFound));
    expect(shape(notFound)).toEqual({
      code: 'TASK_NOT_FOUND',
      message: 'gone',
      metadata: {},
      violations: [],
    });
    const quota = reminderErrorFromConnectError(new ConnectError('full', Code.ResourceExhausted));
    expect(quota.code).toBe('REMINDER_QUOTA_EXCEEDED');
  });

  it('gets UNIMPLEMENTED from a grpc-js server that serves only the SDK A2AService', async () => {
    const stock = new grpc.Server();
    stock.addService(A2AService, {});
    const port = await new Promise<number>((resolve, reject) =>
      stock.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) =>
        e === null ? resolve(p) : reject(e),
      ),
    );
    const stockClient = createGrpcReminderClient({ baseUrl: `http://127.0.0.1:${port}` });
    try {
      const error = await rejection(stockClient.listTaskReminders({ taskId: 't' }));
      expect(error).toBeInstanceOf(ReminderError);
      expect((error as ReminderError).code).toBe('UNIMPLEMENTED');
    } finally {
      stockClient.close();
      stock.forceShutdown();
    }
  });

  it('makes a transport failure INTERNAL and keeps it as the cause', () => {
    const down = new ConnectError('connection refused', Code.Unavailable);
    const error = reminderErrorFromConnectError(down);
    expect(error.code).toBe('INTERNAL');
    expect(error.cause).toBe(down);
  });
});
