import { ReminderError, reminderErrorCodes } from '@a2a-reminders/core';
import { sampleError, specErrorRow, specErrorTable } from '@a2a-reminders/test-support';
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

/** R39 as the spec states it: parsed from docs/extension-spec.md, not restated here. */
const spec = specErrorTable();

const body = JSON.stringify({ reminder: { id: 'r1', body: 'b' } });

describe('REST error table', () => {
  it('covers every core code, as the spec table does', () => {
    expect(Object.keys(restErrorTable).sort()).toEqual([...reminderErrorCodes].sort());
    expect([...spec.keys()].sort()).toEqual([...reminderErrorCodes].sort());
  });

  it.each(reminderErrorCodes)('%s maps as the spec table (R39) says', (code) => {
    const row = specErrorRow(code);
    expect(restErrorTable[code]).toEqual({ httpStatus: row.httpStatus, status: row.grpcStatus });
  });

  it.each(reminderErrorCodes)('%s travels as its google.rpc.Status', async (code) => {
    server = await startFakeServer();
    const thrown = sampleError(code);
    server.state.fail = thrown;
    const { httpStatus, grpcStatus: status } = specErrorRow(code);

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
