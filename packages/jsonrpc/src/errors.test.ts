import { ReminderError, reminderErrorCodes } from '@a2a-reminders/core';
import { sampleError, specErrorRow, specErrorTable } from '@a2a-reminders/test-support';
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

/** R39 as the spec states it: parsed from docs/extension-spec.md, not restated here. */
const spec = specErrorTable();

const injectBody = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'InjectTaskReminder',
  params: { taskId: 'task-1', reminder: { id: 'r1', body: 'b' } },
});

describe('JSON-RPC error table', () => {
  it('covers every core code, as the spec table does', () => {
    expect(Object.keys(jsonRpcErrorTable).sort()).toEqual([...reminderErrorCodes].sort());
    expect([...spec.keys()].sort()).toEqual([...reminderErrorCodes].sort());
  });

  it.each(reminderErrorCodes)('%s maps as the spec table (R39) says', (code) => {
    const row = specErrorRow(code);
    expect(jsonRpcErrorTable[code]).toEqual({
      code: row.jsonRpcCode,
      httpStatus: row.jsonRpcHttpStatus,
    });
  });

  it.each(reminderErrorCodes)('%s travels with its code, status and details', async (code) => {
    server = await startFakeServer();
    const thrown = sampleError(code);
    server.state.fail = thrown;
    const { jsonRpcCode: rpcCode, jsonRpcHttpStatus: httpStatus } = specErrorRow(code);

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
