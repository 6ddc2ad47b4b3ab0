import { gzipSync } from 'node:zlib';
import { TaskState } from '@a2a-js/sdk';
import { ReminderError, TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import { saveTask } from '@a2a-reminders/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_BODY_BYTES, SDK_JSON_LIMIT_BYTES } from './json-rpc-handler.js';
import { post, postChunked, postGzipped, postText, startFakeServer } from './testing/app.js';

type Server = Awaited<ReturnType<typeof startFakeServer>>;
let server: Server | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const inject = (params: unknown, id: unknown = 1) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'InjectTaskReminder', params });
const goodParams = { taskId: 'task-1', reminder: { id: 'r1', body: 'budget is low', ttlTurns: 2 } };

describe('jsonRpcReminderHandler', () => {
  it('answers InjectTaskReminder with the ProtoJSON response and echoes A2A-Extensions', async () => {
    server = await startFakeServer();
    const res = await post(server.endpoint, inject(goodParams, 'a'));
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      jsonrpc: '2.0',
      id: 'a',
      result: {
        record: {
          taskId: 'task-1',
          reminder: { id: 'r1', body: 'budget is low', ttlTurns: 2 },
          state: 'REMINDER_STATE_PENDING',
        },
        taskState: 'TASK_STATE_WORKING',
      },
    });
    expect(res.headers.get('a2a-extensions')).toBe(TASK_REMINDERS_EXTENSION_URI);
    // Labelled as express's res.json labels the SDK's JSON-RPC answers.
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(server.calls[0]?.requestedExtensions).toEqual([TASK_REMINDERS_EXTENSION_URI]);
  });

  it('dispatches every rpc of the descriptor by name', async () => {
    server = await startFakeServer();
    const list = await post(
      server.endpoint,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'ListTaskReminders',
        params: { taskId: 't' },
      }),
    );
    const cancel = await post(
      server.endpoint,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'CancelTaskReminder',
        params: { taskId: 't', reminderId: 'r1' },
      }),
    );
    expect(list.json.result).toEqual({
      reminders: [{ taskId: 't', state: 'REMINDER_STATE_ACTIVE' }],
    });
    expect(cancel.json.result).toEqual({
      record: { taskId: 't', state: 'REMINDER_STATE_CANCELLED' },
    });
    expect(server.calls.map((c) => c.method)).toEqual(['listTaskReminders', 'cancelTaskReminder']);
  });

  it('resolves the caller with the same UserBuilder and takes the tenant from params.tenant', async () => {
    server = await startFakeServer();
    await post(server.endpoint, inject({ ...goodParams, tenant: 'acme' }), { 'x-user': 'alice' });
    await post(server.endpoint, inject(goodParams));
    expect(server.calls.map((c) => [c.userName, c.tenant, c.request.tenant])).toEqual([
      ['alice', 'acme', 'acme'],
      ['', undefined, ''],
    ]);
  });

  it('passes stock SDK methods through on the same path (GetTask, unknown method)', async () => {
    server = await startFakeServer();
    await saveTask(server.taskStore, { id: 'task-9', state: TaskState.TASK_STATE_WORKING });
    const get = await post(
      server.endpoint,
      JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'GetTask', params: { id: 'task-9' } }),
    );
    expect(get.status).toBe(200);
    expect((get.json.result as { id: string }).id).toBe('task-9');
    const missing = await post(
      server.endpoint,
      JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'GetTask', params: { id: 'nope' } }),
    );
    expect((missing.json.error as { code: number }).code).toBe(-32001);
    const unknown = await post(
      server.endpoint,
      JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'NoSuchMethod', params: {} }),
    );
    expect((unknown.json.error as { code: number }).code).toBe(-32601);
    expect(server.calls).toHaveLength(0);
  });

  it('leaves the SDK its own body limit: an 80 KiB GetTask still reaches the SDK', async () => {
    server = await startFakeServer();
    await saveTask(server.taskStore, { id: 'task-big', state: TaskState.TASK_STATE_WORKING });
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'GetTask',
      params: { id: 'task-big', padding: 'x'.repeat(80 * 1024) },
    });
    const res = await post(server.endpoint, body);
    expect((res.json.result as { id: string }).id).toBe('task-big');
  });

  it('works when express.json() is mounted in front, for ours and the SDK methods', async () => {
    server = await startFakeServer({}, { jsonFirst: true });
    await saveTask(server.taskStore, { id: 'task-2', state: TaskState.TASK_STATE_WORKING });
    const ours = await post(server.endpoint, inject(goodParams));
    expect((ours.json.result as { taskState: string }).taskState).toBe('TASK_STATE_WORKING');
    const get = await post(
      server.endpoint,
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id: 'task-2' } }),
    );
    expect((get.json.result as { id: string }).id).toBe('task-2');
  });

  it("leaves the SDK methods' room to a parser mounted in front, and still limits reminder calls (W12)", async () => {
    server = await startFakeServer(
      { maxBodyBytes: 1024 },
      { jsonFirst: true, jsonFirstLimit: '10mb' },
    );
    await saveTask(server.taskStore, { id: 'task-3', state: TaskState.TASK_STATE_WORKING });
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 3,
      method: 'GetTask',
      params: { id: 'task-3', padding: 'x'.repeat(2 * SDK_JSON_LIMIT_BYTES) },
    });
    const get = await post(server.endpoint, big);
    expect((get.json.result as { id: string } | undefined)?.id).toBe('task-3');
    const over = await post(
      server.endpoint,
      inject({ ...goodParams, reminder: { ...goodParams.reminder, body: 'x'.repeat(2048) } }),
    );
    expect([over.status, (over.json.error as { code: number }).code]).toEqual([413, -32600]);
    expect(server.calls).toHaveLength(0);
  });

  it('rejects a request without A2A-Version 1.0 with -32009, like the SDK', async () => {
    server = await startFakeServer();
    const res = await post(server.endpoint, inject(goodParams), { 'A2A-Version': '' });
    expect(res.status).toBe(200);
    expect((res.json.error as { code: number }).code).toBe(-32009);
    expect(server.calls).toHaveLength(0);
  });
});

describe('malformed input', () => {
  it('answers malformed JSON with -32700 and keeps serving', async () => {
    server = await startFakeServer();
    const res = await post(server.endpoint, '{"jsonrpc":"2.0","method":"InjectTaskReminder",');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Invalid JSON payload.' },
    });
    const again = await post(server.endpoint, inject(goodParams));
    expect(again.json.result).toBeDefined();
  });

  it('answers a body over maxBodyBytes with -32600 and HTTP 413', async () => {
    server = await startFakeServer({ maxBodyBytes: 1024 });
    const res = await post(
      server.endpoint,
      inject({ taskId: 't', reminder: { id: 'r', body: 'x'.repeat(2000) } }, 5),
    );
    expect(res.status).toBe(413);
    expect(res.json).toMatchObject({ id: 5, error: { code: -32600 } });
    expect(server.calls).toHaveLength(0);
  });

  it('answers a body over every limit with a JSON-RPC error, not a hang', async () => {
    server = await startFakeServer();
    const res = await post(server.endpoint, inject({ padding: 'x'.repeat(200 * 1024) }));
    expect(res.status).toBe(413);
    expect(res.json).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it('leaves a wrong content type to the SDK guard, which answers -32005', async () => {
    server = await startFakeServer();
    const res = await post(server.endpoint, inject(goodParams), { 'Content-Type': 'text/plain' });
    expect(res.status).toBe(200);
    expect((res.json.error as { code: number }).code).toBe(-32005);
    expect(server.calls).toHaveLength(0);
  });

  it('answers an invalid envelope with -32600', async () => {
    server = await startFakeServer();
    const badVersion = await post(
      server.endpoint,
      JSON.stringify({ jsonrpc: '1.0', id: 1, method: 'InjectTaskReminder', params: goodParams }),
    );
    expect(badVersion.json).toMatchObject({ id: 1, error: { code: -32600 } });
    const badId = await post(server.endpoint, inject(goodParams, 1.5));
    expect(badId.json).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it('hands non-object bodies to the SDK, which answers with a JSON-RPC error', async () => {
    server = await startFakeServer();
    const res = await post(server.endpoint, '[1,2]');
    expect(res.json.error).toBeDefined();
    expect(server.calls).toHaveLength(0);
  });

  it('answers params that are not an object with -32602 and a field violation', async () => {
    server = await startFakeServer();
    const res = await post(server.endpoint, inject(['task-1']));
    expect(res.json).toMatchObject({
      id: 1,
      error: {
        code: -32602,
        data: [
          {
            '@type': 'type.googleapis.com/google.rpc.BadRequest',
            fieldViolations: [{ field: 'params' }],
          },
        ],
      },
    });
  });

  it('answers params that do not parse as the request with -32602', async () => {
    server = await startFakeServer();
    const res = await post(server.endpoint, inject({ taskId: 5, reminder: 'no' }));
    expect((res.json.error as { code: number }).code).toBe(-32602);
    expect(server.calls).toHaveLength(0);
  });
});

/** A raw POST whose answer may have no body at all. */
async function postRaw(endpoint: string, body: string) {
  const { status, text } = await postText(endpoint, body);
  return { status, text };
}

describe('jsonRpcReminderHandler notifications (W11)', () => {
  const notify = (method: string, params: unknown) =>
    JSON.stringify({ jsonrpc: '2.0', method, params });

  it('performs a notification and answers 204 with no body', async () => {
    server = await startFakeServer();
    const res = await postRaw(server.endpoint, notify('InjectTaskReminder', goodParams));
    expect(res).toEqual({ status: 204, text: '' });
    expect(server.calls.map((c) => [c.method, c.request.taskId])).toEqual([
      ['injectTaskReminder', 'task-1'],
    ]);
  });

  it('answers a failing notification with 204 and no body too', async () => {
    server = await startFakeServer();
    server.state.fail = new ReminderError('TASK_NOT_FOUND', 'task task-1 not found');
    const failed = await postRaw(server.endpoint, notify('CancelTaskReminder', goodParams));
    expect(failed).toEqual({ status: 204, text: '' });
    expect(server.calls).toHaveLength(1);
    const invalid = await postRaw(server.endpoint, notify('ListTaskReminders', ['task-1']));
    expect(invalid).toEqual({ status: 204, text: '' });
  });

  it('still answers an id of null, and an envelope that is no valid request', async () => {
    server = await startFakeServer();
    const nullId = await post(server.endpoint, inject(goodParams, null));
    expect(nullId.json).toMatchObject({ id: null, result: { taskState: 'TASK_STATE_WORKING' } });
    const badVersion = await post(
      server.endpoint,
      JSON.stringify({ jsonrpc: '1.0', method: 'InjectTaskReminder', params: goodParams }),
    );
    expect(badVersion.json).toMatchObject({ id: null, error: { code: -32600 } });
  });
});

describe('jsonRpcReminderHandler body limit (W12)', () => {
  const getTask = (padding: number) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'GetTask',
      params: { id: 'task-big', padding: 'x'.repeat(padding) },
    });

  it('quotes the limit that refused a body read past the endpoint’s read limit', async () => {
    server = await startFakeServer();
    const res = await post(server.endpoint, inject({ padding: 'x'.repeat(200 * 1024) }));
    expect(res.status).toBe(413);
    const message = (res.json.error as { message: string }).message;
    expect(message).toContain(`${SDK_JSON_LIMIT_BYTES} bytes`);
    expect(message).toContain(`at most ${DEFAULT_MAX_BODY_BYTES} bytes`);
  });

  it('quotes the reminder limit for a reminder call over it, before any check or decoding', async () => {
    server = await startFakeServer({ maxBodyBytes: 1024 });
    // Sent with its Content-Length, which is the size the message quotes.
    const text = inject(
      { taskId: 't', reminder: { id: 'r', body: 'x'.repeat(2000), ttlTurns: 'abc' } },
      5,
    );
    const res = await post(server.endpoint, text, { 'A2A-Version': '0.3' });
    expect(res.status).toBe(413);
    expect(res.json).toMatchObject({ id: 5, error: { code: -32600 } });
    expect(errorMessage(res.json)).toBe(
      `Request body of ${Buffer.byteLength(text)} bytes exceeds the limit of 1024 bytes for reminder methods.`,
    );
    expect(server.calls).toHaveLength(0);
  });

  it.each([
    ['with a Content-Length', post],
    ['chunked', postChunked],
  ])('keeps the SDK’s 100 kB room when the reminder limit is larger (%s)', async (_, send) => {
    server = await startFakeServer({ maxBodyBytes: 256 * 1024 });
    await saveTask(server.taskStore, { id: 'task-big', state: TaskState.TASK_STATE_WORKING });
    const inRoom = await send(server.endpoint, getTask(80 * 1024));
    expect((inRoom.json.result as { id: string }).id).toBe('task-big');
    const overRoom = await send(server.endpoint, getTask(150 * 1024));
    expect(overRoom.status).toBe(413);
    expect(errorMessage(overRoom.json)).toContain(
      `limit of ${SDK_JSON_LIMIT_BYTES} bytes for A2A methods`,
    );
    // A reminder call of the same size is within its own limit.
    const ours = await send(
      server.endpoint,
      inject({ ...goodParams, reminder: { ...goodParams.reminder, body: 'x'.repeat(150 * 1024) } }),
    );
    expect(ours.status).toBe(200);
    expect(server.calls).toHaveLength(1);
  });

  it('measures a chunked body (no Content-Length) against the reminder limit', async () => {
    server = await startFakeServer({ maxBodyBytes: 1024 });
    // Indented, so its size read off the wire differs from its JSON re-serialized.
    const overReminderLimit = indented(
      inject({ taskId: 't', reminder: { id: 'r', body: 'x'.repeat(2000) } }, 5),
    );
    const refused = await postChunked(server.endpoint, overReminderLimit);
    expect(refused.status).toBe(413);
    expect(errorMessage(refused.json)).toBe(
      `Request body of ${Buffer.byteLength(overReminderLimit)} bytes exceeds the limit of 1024 bytes for reminder methods.`,
    );
    const accepted = await postChunked(server.endpoint, inject(goodParams, 6));
    expect(accepted.status).toBe(200);
    expect(accepted.json.result).toBeDefined();
    expect(server.calls).toHaveLength(1);
  });

  it('refuses a chunked body past the read limit while reading it', async () => {
    server = await startFakeServer();
    const res = await postChunked(server.endpoint, inject({ padding: 'x'.repeat(200 * 1024) }));
    expect(res.status).toBe(413);
    expect(errorMessage(res.json)).toContain(`exceeds ${SDK_JSON_LIMIT_BYTES} bytes`);
    expect(server.calls).toHaveLength(0);
  });

  it('refuses a body declared past the read limit before reading it, whatever its charset', async () => {
    // Its Content-Length is checked first, as express.json() alone checks it.
    server = await startFakeServer();
    const res = await post(server.endpoint, inject({ padding: 'x'.repeat(200 * 1024) }), {
      'Content-Type': 'application/json; charset=utf-9',
    });
    expect(res.status).toBe(413);
    expect(errorMessage(res.json)).toContain(`exceeds ${SDK_JSON_LIMIT_BYTES} bytes`);
    expect(server.calls).toHaveLength(0);
  });

  it('measures a compressed body it reads as inflated, not by its Content-Length', async () => {
    server = await startFakeServer({ maxBodyBytes: 1024 });
    const text = inject({ taskId: 't', reminder: { id: 'r', body: 'x'.repeat(4000) } }, 7);
    expect(gzipSync(text).length).toBeLessThan(1024);
    const res = await postGzipped(server.endpoint, text);
    expect(res.status).toBe(413);
    expect(errorMessage(res.json)).toBe(
      `Request body of ${Buffer.byteLength(text)} bytes exceeds the limit of 1024 bytes for reminder methods.`,
    );
    expect(server.calls).toHaveLength(0);
  });

  it('behind a parser in front, measures chunked and compressed bodies by their JSON', async () => {
    server = await startFakeServer({ maxBodyBytes: 1024 }, { jsonFirst: true });
    const call = inject({ taskId: 't', reminder: { id: 'r', body: 'x'.repeat(2000) } }, 8);
    const expected = `Request body of ${Buffer.byteLength(call)} bytes exceeds the limit of 1024 bytes for reminder methods.`;
    const chunked = await postChunked(server.endpoint, indented(call));
    expect(chunked.status).toBe(413);
    expect(errorMessage(chunked.json)).toBe(expected);
    // Its Content-Length counts the compressed bytes, under the limit.
    expect(gzipSync(call).length).toBeLessThan(1024);
    const gzipped = await postGzipped(server.endpoint, call);
    expect(gzipped.status).toBe(413);
    expect(errorMessage(gzipped.json)).toBe(expected);
    expect(server.calls).toHaveLength(0);
  });
});

function indented(json: string): string {
  return JSON.stringify(JSON.parse(json), null, 2);
}

function errorMessage(json: Record<string, unknown>): string {
  return (json.error as { message: string }).message;
}
