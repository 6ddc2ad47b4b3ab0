import type { ReminderErrorCode } from '@a2a-reminders/core';
import { ReminderError, reminderErrorCodes } from '@a2a-reminders/core';
import { sampleError } from '@a2a-reminders/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { codeOfJsonRpcError, jsonRpcErrorTable } from './errors.js';
import { createJsonRpcReminderClient } from './json-rpc-client.js';
import { post, startFakeServer } from './testing/app.js';

type Server = Awaited<ReturnType<typeof startFakeServer>>;
let server: Server | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The table the README documents (issue 4 wire table). */
const expected: Record<ReminderErrorCode, [number, number]> = {
  TASK_NOT_FOUND: [-32001, 200],
  TASK_TERMINAL: [-32004, 200],
  INVALID_ARGUMENT: [-32602, 200],
  REMINDER_ID_CONFLICT: [-32602, 200],
  REMINDER_NOT_FOUND: [-32000, 200],
  REMINDER_NOT_LIVE: [-32004, 200],
  REMINDER_QUOTA_EXCEEDED: [-32000, 200],
  EXTENSION_NOT_ACTIVATED: [-32008, 200],
  VERSION_NOT_SUPPORTED: [-32009, 200],
  UNAUTHENTICATED: [-32000, 401],
  UNIMPLEMENTED: [-32601, 200],
  INTERNAL: [-32603, 500],
};

const injectBody = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'InjectTaskReminder',
  params: { taskId: 'task-1', reminder: { id: 'r1', body: 'b' } },
});

describe('JSON-RPC error table', () => {
  it('covers every core code', () => {
    expect(Object.keys(jsonRpcErrorTable).sort()).toEqual([...reminderErrorCodes].sort());
  });

  it.each(reminderErrorCodes)('%s travels with its code, status and details', async (code) => {
    server = await startFakeServer();
    const thrown = sampleError(code);
    server.state.fail = thrown;
    const [rpcCode, httpStatus] = expected[code];

    const raw = await post(server.endpoint, injectBody);
    expect(raw.status).toBe(httpStatus);
    const error = raw.json.error as { code: number; message: string; data?: unknown[] };
    expect(error.code).toBe(rpcCode);
    expect(error.message).toBe(thrown.message);
    const details = thrown.toStatusDetails();
    const data = (error.data ?? []) as Array<{ '@type': string }>;
    expect(data.map((d) => d['@type'])).toEqual(
      details.map((d) => `type.googleapis.com/${d.$typeName}`),
    );

    const client = createJsonRpcReminderClient({ baseUrl: server.endpoint });
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

  it('turns an unexpected exception into -32603 / HTTP 500 without leaking it', async () => {
    server = await startFakeServer();
    server.state.fail = new Error('database password is hunter2');
    const raw = await post(server.endpoint, injectBody);
    expect(raw.status).toBe(500);
    expect(raw.json.error).toEqual({ code: -32603, message: 'internal error' });
  });
});

describe('codeOfJsonRpcError (responses without ErrorInfo)', () => {
  it.each([
    [-32001, 200, 'TASK_NOT_FOUND'],
    [-32004, 200, 'TASK_TERMINAL'],
    [-32602, 200, 'INVALID_ARGUMENT'],
    [-32700, 200, 'INVALID_ARGUMENT'],
    [-32600, 413, 'INVALID_ARGUMENT'],
    [-32005, 200, 'INVALID_ARGUMENT'],
    [-32008, 200, 'EXTENSION_NOT_ACTIVATED'],
    [-32009, 200, 'VERSION_NOT_SUPPORTED'],
    [-32000, 401, 'UNAUTHENTICATED'],
    [-32601, 200, 'UNIMPLEMENTED'],
    [-32000, 200, 'INTERNAL'],
    [-32603, 500, 'INTERNAL'],
    [-32099, 200, 'INTERNAL'],
  ] as const)('%i with HTTP %i is %s', (code, status, expectedCode) => {
    expect(codeOfJsonRpcError(code, status)).toBe(expectedCode);
  });
});
