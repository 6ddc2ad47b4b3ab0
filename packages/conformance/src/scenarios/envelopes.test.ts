import { SDK_JSON_LIMIT_BYTES } from '@a2a-reminders/jsonrpc';
import { InjectTaskReminderRequestSchema } from '@a2a-reminders/proto';
import type { JsonObject } from '@bufbuild/protobuf';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { expect } from 'vitest';
import type { HttpAnswer } from '../harness/raw-wire.js';
import { rawGrpc, rawHttp, rawJsonRpc, rawRest } from '../harness/raw-wire.js';
import { verifies } from '../harness/verifies.js';

/** The limit the W12 cases run with, far below every default. */
const LIMIT = 1024;

verifies('W11-jsonrpc-notifications', async ({ wire }) => {
  const taskId = await wire.tasks.create();
  const notify = (method: string, params: JsonObject) =>
    rawJsonRpc(wire.endpoints, { jsonrpc: '2.0', method, params });

  const injected = await notify('InjectTaskReminder', {
    taskId,
    reminder: { id: 'quiet', body: 'sent as a notification' },
  });
  expect([injected.status, injected.text]).toEqual([204, '']);
  // Performed all the same: the reminder is there.
  const listed = await wire.client.listTaskReminders({ taskId });
  expect(listed.reminders.map((r) => r.reminder?.id)).toEqual(['quiet']);

  // A failing notification is not answered either, whatever the failure.
  for (const [method, params] of [
    ['CancelTaskReminder', { taskId, reminderId: 'no-such-reminder' }],
    ['ListTaskReminders', { taskId: 'no-such-task' }],
    ['InjectTaskReminder', { taskId, reminder: { id: 'bad id', body: '' } }],
  ] as const) {
    const answer = await notify(method, params);
    expect({ method, status: answer.status, text: answer.text }).toEqual({
      method,
      status: 204,
      text: '',
    });
  }
  // A request with an id, even a null one, is answered.
  const answered = await rawJsonRpc(wire.endpoints, {
    jsonrpc: '2.0',
    id: null,
    method: 'ListTaskReminders',
    params: { taskId },
  });
  expect(answered.json).toMatchObject({ jsonrpc: '2.0', id: null, result: {} });
});

verifies(
  'W12-one-body-limit',
  async ({ arm, wire }) => {
    const stack = wire.endpoints;
    const taskId = await wire.tasks.create();
    // Over the limit, unactivated, without A2A-Version and unreadable: the size answers first.
    const unreadable = {
      taskId,
      reminder: { id: 'bad id', body: 'x'.repeat(2 * LIMIT), ttlTurns: 'abc' },
    };
    const bare = { 'A2A-Version': '', 'A2A-Extensions': '' };
    if (arm === 'jsonrpc') {
      const over = await rawJsonRpc(
        stack,
        { jsonrpc: '2.0', id: 7, method: 'InjectTaskReminder', params: unreadable },
        bare,
      );
      expect([over.status, over.json.id, errorOf(over).code]).toEqual([413, 7, -32600]);
      expect(errorOf(over).message).toContain(`limit of ${LIMIT} bytes for reminder methods`);
      // Past what the endpoint reads at all: the message names that limit, the one enforced.
      const past = await rawJsonRpc(
        stack,
        `{"jsonrpc":"2.0","id":8,"method":"InjectTaskReminder","params":{"pad":"${'x'.repeat(SDK_JSON_LIMIT_BYTES)}"}}`,
      );
      expect([past.status, errorOf(past).code]).toEqual([413, -32600]);
      expect(errorOf(past).message).toContain(`exceeds ${SDK_JSON_LIMIT_BYTES} bytes`);
      expect(errorOf(past).message).toContain(`at most ${LIMIT} bytes`);
      // The SDK's own methods keep their room: a 50 kB GetTask is served.
      const getTask = await rawJsonRpc(stack, {
        jsonrpc: '2.0',
        id: 9,
        method: 'GetTask',
        params: { id: taskId, padding: 'x'.repeat(50 * 1024) },
      });
      expect((getTask.json.result as JsonObject | undefined)?.id).toBe(taskId);
    } else if (arm === 'rest') {
      // Not even valid JSON: refused while reading, before any parse.
      const over = await rawRest(
        stack,
        'POST',
        `/tasks/${taskId}:injectReminder`,
        `{"reminder":${'['.repeat(2 * LIMIT)}`,
        bare,
      );
      expect([over.status, errorOf(over).status]).toEqual([413, 'INVALID_ARGUMENT']);
      expect(errorOf(over).message).toContain(`${LIMIT} bytes`);
    } else {
      // Bytes no decoder could read, over the limit: the length answers, not the decoder.
      const over = await rawGrpc(stack, 'InjectTaskReminder', Buffer.alloc(2 * LIMIT, 0xff), {});
      expect([over.code, over.message]).toEqual([
        GrpcStatus.INVALID_ARGUMENT,
        `request of ${2 * LIMIT} bytes exceeds the limit of ${LIMIT} bytes`,
      ]);
      // The same bytes under the limit reach the decoder.
      const under = await rawGrpc(stack, 'InjectTaskReminder', Buffer.alloc(LIMIT / 2, 0xff));
      expect([under.code, under.message]).toEqual([
        GrpcStatus.INVALID_ARGUMENT,
        `request is not a valid ${InjectTaskReminderRequestSchema.typeName} message`,
      ]);
    }
    // Under the limit the same binding serves the call.
    const fine = await wire.client.injectTaskReminder({
      taskId,
      reminder: { id: 'ok', body: 'b' },
    });
    expect(fine.record?.reminder?.id).toBe('ok');
  },
  { stack: { maxBodyBytes: LIMIT } },
);

verifies('W13-json-errors-only', async ({ arm, wire }) => {
  const stack = wire.endpoints;
  const weird = { 'Content-Type': 'application/json', 'Content-Encoding': 'x-custom' };
  const answers: Array<[string, HttpAnswer, number]> =
    arm === 'jsonrpc'
      ? [
          [
            'PUT, unknown encoding',
            await rawHttp(stack, 'PUT', stack.jsonRpcUrl, { body: '{}', headers: weird }),
            415,
          ],
          [
            'POST, unknown encoding',
            await rawHttp(stack, 'POST', stack.jsonRpcUrl, { body: '{}', headers: weird }),
            415,
          ],
          ['GET', await rawHttp(stack, 'GET', stack.jsonRpcUrl), 405],
          [
            'sub-path',
            await rawHttp(stack, 'POST', `${stack.jsonRpcUrl}/elsewhere`, {
              body: '{}',
              headers: { 'Content-Type': 'application/json' },
            }),
            404,
          ],
        ]
      : [
          [
            'SDK route, unknown encoding',
            await rawHttp(stack, 'POST', `${stack.restUrl}/message:send`, {
              body: '{}',
              headers: weird,
            }),
            415,
          ],
          [
            'our route, unknown encoding',
            await rawHttp(stack, 'POST', `${stack.restUrl}/tasks/t:injectReminder`, {
              body: '{}',
              headers: weird,
            }),
            415,
          ],
          ['unknown route', await rawHttp(stack, 'GET', `${stack.restUrl}/no/such/route`), 404],
        ];
  for (const [name, answer, status] of answers) {
    expect({ name, status: answer.status }).toEqual({ name, status });
    expect(answer.headers.get('content-type') ?? '', name).toMatch(/^application\/(a2a\+)?json/);
    expect(answer.text, name).not.toMatch(/\n\s+at |node_modules|\.[jt]s:\d+|<html|<pre/i);
    expect(answer.text, name).not.toContain(process.cwd());
    if (arm === 'jsonrpc') {
      expect(answer.json, name).toMatchObject({
        jsonrpc: '2.0',
        id: null,
        error: { code: expect.any(Number) },
      });
    } else {
      expect(answer.json, name).toMatchObject({
        error: { code: status, status: expect.any(String) },
      });
    }
  }
});

function errorOf(answer: HttpAnswer): { code?: number; status?: string; message?: string } {
  return (answer.json.error ?? {}) as { code?: number; status?: string; message?: string };
}
