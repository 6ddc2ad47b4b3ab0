import type { ReminderErrorCode } from '@a2a-reminders/core';
import { ReminderError, reminderErrorCodes } from '@a2a-reminders/core';
import { sampleError } from '@a2a-reminders/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { codeOfRestError, restErrorTable } from './errors.js';
import { createRestReminderClient } from './rest-client.js';
import { call, startFakeServer } from './testing/app.js';

type Server = Awaited<ReturnType<typeof startFakeServer>>;
let server: Server | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The table the README documents (issue 4 wire table). */
const expected: Record<ReminderErrorCode, [number, string]> = {
  TASK_NOT_FOUND: [404, 'NOT_FOUND'],
  TASK_TERMINAL: [400, 'FAILED_PRECONDITION'],
  INVALID_ARGUMENT: [400, 'INVALID_ARGUMENT'],
  REMINDER_ID_CONFLICT: [400, 'INVALID_ARGUMENT'],
  REMINDER_NOT_FOUND: [404, 'NOT_FOUND'],
  REMINDER_NOT_LIVE: [400, 'FAILED_PRECONDITION'],
  REMINDER_QUOTA_EXCEEDED: [429, 'RESOURCE_EXHAUSTED'],
  EXTENSION_NOT_ACTIVATED: [400, 'FAILED_PRECONDITION'],
  VERSION_NOT_SUPPORTED: [400, 'FAILED_PRECONDITION'],
  UNAUTHENTICATED: [401, 'UNAUTHENTICATED'],
  UNIMPLEMENTED: [501, 'UNIMPLEMENTED'],
  INTERNAL: [500, 'INTERNAL'],
};

const body = JSON.stringify({ reminder: { id: 'r1', body: 'b' } });

describe('REST error table', () => {
  it('covers every core code', () => {
    expect(Object.keys(restErrorTable).sort()).toEqual([...reminderErrorCodes].sort());
  });

  it.each(reminderErrorCodes)('%s travels as its google.rpc.Status', async (code) => {
    server = await startFakeServer();
    const thrown = sampleError(code);
    server.state.fail = thrown;
    const [httpStatus, status] = expected[code];

    const raw = await call('POST', `${server.baseUrl}/tasks/task-1:injectReminder`, body);
    expect(raw.status).toBe(httpStatus);
    const error = raw.json.error as {
      code: number;
      status: string;
      message: string;
      details: unknown[];
    };
    expect(error).toMatchObject({ code: httpStatus, status, message: thrown.message });
    const details = thrown.toStatusDetails();
    expect(error.details.map((d) => (d as { '@type': string })['@type'])).toEqual(
      details.map((d) => `type.googleapis.com/${d.$typeName}`),
    );

    const client = createRestReminderClient({ baseUrl: server.baseUrl });
    const failure = await client
      .injectTaskReminder({ taskId: 'task-1', reminder: { id: 'r1', body: 'b' } })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ReminderError);
    const back = failure as ReminderError;
    expect(back.code).toBe(code);
    expect(back.message).toBe(thrown.message);
    expect(back.fieldViolations).toEqual(thrown.fieldViolations);
    // Metadata travels in ErrorInfo; a bare BadRequest carries only the violations.
    if (details.some((d) => d.$typeName === 'google.rpc.ErrorInfo')) {
      expect(back.metadata).toEqual(thrown.metadata);
    }
  });

  it('turns an unexpected exception into 500 INTERNAL without leaking it', async () => {
    server = await startFakeServer();
    server.state.fail = new Error('database password is hunter2');
    const raw = await call('POST', `${server.baseUrl}/tasks/task-1:injectReminder`, body);
    expect(raw.status).toBe(500);
    expect(raw.json).toEqual({
      error: { code: 500, status: 'INTERNAL', message: 'internal error', details: [] },
    });
  });
});

describe('codeOfRestError (bodies without ErrorInfo)', () => {
  it.each([
    [404, 'NOT_FOUND', 'TASK_NOT_FOUND'],
    [400, 'INVALID_ARGUMENT', 'INVALID_ARGUMENT'],
    [400, 'FAILED_PRECONDITION', 'TASK_TERMINAL'],
    [413, 'INVALID_ARGUMENT', 'INVALID_ARGUMENT'],
    [401, 'UNAUTHENTICATED', 'UNAUTHENTICATED'],
    [501, 'UNIMPLEMENTED', 'UNIMPLEMENTED'],
    [401, undefined, 'UNAUTHENTICATED'],
    [429, 'RESOURCE_EXHAUSTED', 'INTERNAL'],
    [500, 'INTERNAL', 'INTERNAL'],
    [503, 'UNAVAILABLE', 'INTERNAL'],
  ] as const)('%i %s is %s', (status, name, expectedCode) => {
    expect(codeOfRestError(status, name)).toBe(expectedCode);
  });
});
