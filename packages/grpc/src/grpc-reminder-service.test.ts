import { STATE_HEADERS_KEY } from '@a2a-js/sdk/server';
import { A2AService } from '@a2a-js/sdk/server/grpc';
import type { ReminderErrorCode } from '@a2a-reminders/core';
import {
  ReminderError,
  reminderErrorCodes,
  TASK_REMINDERS_EXTENSION_URI,
} from '@a2a-reminders/core';
import { reminderErrorWire } from '@a2a-reminders/core/protocol';
import {
  ErrorInfoSchema,
  InjectTaskReminderRequestSchema,
  InjectTaskReminderResponseSchema,
  reminderRpcs,
} from '@a2a-reminders/proto';
import type { DescMessage, MessageInitShape } from '@bufbuild/protobuf';
import { create, fromBinary, isMessage, toBinary } from '@bufbuild/protobuf';
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_REQUEST_BYTES } from './grpc-reminder-service.js';
import { FakeReminderHandler } from './testing/fake-reminder-handler.js';
import { callRaw, decodeStatusDetails } from './testing/raw-grpc-client.js';
import type { TestServer } from './testing/test-server.js';
import { startTestServer, TaskState } from './testing/test-server.js';

const a2aMetadata = { 'a2a-version': '1.0', 'a2a-extensions': TASK_REMINDERS_EXTENSION_URI };

const injectPath = '/a2a.reminders.v1.TaskReminderService/InjectTaskReminder';

function injectBytes(taskId = 'task-1'): Buffer {
  const request = create(InjectTaskReminderRequestSchema, {
    taskId,
    reminder: { id: 'r-1', body: 'stay on budget' },
  });
  return Buffer.from(toBinary(InjectTaskReminderRequestSchema, request));
}

/** An error of each code, with metadata only where the wire details can carry it back. */
function sampleError(code: ReminderErrorCode): ReminderError {
  const violations =
    code === 'INVALID_ARGUMENT' || code === 'REMINDER_ID_CONFLICT'
      ? [{ field: 'reminder.ttlTurns', description: 'must be between 1 and 20' }]
      : [];
  const probe = new ReminderError(code, 'probe');
  const carriesInfo = probe.toStatusDetails().some((d) => isMessage(d, ErrorInfoSchema));
  return new ReminderError(code, `failure ${code}`, {
    ...(carriesInfo ? { metadata: { taskId: 'task-1' } } : {}),
    fieldViolations: violations,
  });
}

describe('grpcReminderService on a grpc.Server next to the SDK A2AService', () => {
  let server: TestServer;
  let fake: FakeReminderHandler;

  beforeAll(async () => {
    server = await startTestServer({
      reminders: () => {
        fake = new FakeReminderHandler();
        return fake;
      },
    });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    fake.calls.length = 0;
    fake.failWith = undefined;
  });

  it('serves every rpc of the descriptor at its path and dispatches by local name', async () => {
    for (const rpc of reminderRpcs) {
      const init = { tenant: 'acme', taskId: 'task-1', reminderId: 'r-1', reminder: { id: 'r-1' } };
      const request = create(rpc.method.input, init as MessageInitShape<DescMessage>);
      const result = await callRaw(
        server.target,
        rpc.grpcPath,
        Buffer.from(toBinary(rpc.method.input, request)),
        a2aMetadata,
      );
      expect(result.error).toBeUndefined();
      const response = fromBinary(rpc.method.output, result.response ?? Buffer.alloc(0));
      expect(response.$typeName).toBe(rpc.method.output.typeName);
      const call = fake.calls.at(-1);
      expect(call?.method).toBe(rpc.method.localName);
      expect(call?.request.$typeName).toBe(rpc.method.input.typeName);
    }
    expect(fake.calls).toHaveLength(reminderRpcs.length);
  });

  it('builds the call context from metadata as the SDK does and echoes activated extensions', async () => {
    const request = create(InjectTaskReminderRequestSchema, {
      tenant: 'acme',
      taskId: 'task-1',
      reminder: { id: 'r-1', body: 'b' },
    });
    const result = await callRaw(
      server.target,
      injectPath,
      Buffer.from(toBinary(InjectTaskReminderRequestSchema, request)),
      {
        'a2a-version': '1.0',
        'a2a-extensions': ['urn:other', TASK_REMINDERS_EXTENSION_URI],
        authorization: 'Bearer alice',
      },
    );
    expect(result.error).toBeUndefined();
    const response = fromBinary(
      InjectTaskReminderResponseSchema,
      result.response ?? Buffer.alloc(0),
    );
    expect(response.record?.taskId).toBe('task-1');
    const context = fake.calls[0]?.context;
    expect(context?.tenant).toBe('acme');
    expect(context?.requestedVersion).toBe('1.0');
    expect(context?.requestedExtensions).toEqual(['urn:other', TASK_REMINDERS_EXTENSION_URI]);
    expect(context?.user?.userName).toBe('alice');
    const headers = context?.state.get(STATE_HEADERS_KEY) as Record<string, string> | undefined;
    expect(headers?.authorization).toBe('Bearer alice');
    expect(result.headers?.get('a2a-extensions')).toEqual([TASK_REMINDERS_EXTENSION_URI]);
  });

  it('refuses a call without A2A-Version 1.0 before reaching the handler, like the SDK', async () => {
    const result = await callRaw(server.target, injectPath, injectBytes(), {
      'a2a-extensions': TASK_REMINDERS_EXTENSION_URI,
    });
    expect(result.error?.code).toBe(status.FAILED_PRECONDITION);
    const { details } = decodeStatusDetails(result.error ?? fail());
    expect(details).toContainEqual(
      expect.objectContaining({ reason: 'VERSION_NOT_SUPPORTED', domain: 'a2a-protocol.org' }),
    );
    expect(fake.calls).toHaveLength(0);
  });

  it.each(reminderErrorCodes)(
    'sends %s with its table status and google.rpc.Status details',
    async (code) => {
      const error = sampleError(code);
      fake.failWith = error;
      const result = await callRaw(server.target, injectPath, injectBytes(), a2aMetadata);
      expect(result.error?.code).toBe(reminderErrorWire[code].grpc);
      expect(result.error?.details).toBe(error.message);
      const decoded = decodeStatusDetails(result.error ?? fail());
      expect(decoded.status.code).toBe(reminderErrorWire[code].grpc);
      expect(decoded.status.message).toBe(error.message);
      expect(decoded.details).toEqual(error.toStatusDetails());
    },
  );

  it('hides the message of an unexpected failure behind INTERNAL', async () => {
    fake.failWith = new Error('connection string postgres://secret');
    const result = await callRaw(server.target, injectPath, injectBytes(), a2aMetadata);
    expect(result.error?.code).toBe(status.INTERNAL);
    expect(result.error?.details).not.toContain('secret');
  });

  it('answers bytes that are not a request with INVALID_ARGUMENT and keeps serving', async () => {
    // Field 2 (task_id), length-delimited, claiming 100 bytes that never come.
    const truncated = Buffer.from([0x12, 0x64, 0x61]);
    // Wire type 7 does not exist.
    const badWireType = Buffer.from([0x0f, 0x01]);
    for (const bytes of [truncated, badWireType]) {
      const result = await callRaw(server.target, injectPath, bytes, a2aMetadata);
      expect(result.error?.code).toBe(status.INVALID_ARGUMENT);
      expect(result.error?.details).toContain('a2a.reminders.v1.InjectTaskReminderRequest');
    }
    expect(fake.calls).toHaveLength(0);
    const after = await callRaw(server.target, injectPath, injectBytes(), a2aMetadata);
    expect(after.error).toBeUndefined();
    expect(fake.calls).toHaveLength(1);
  });

  it('answers a request over the size limit with INVALID_ARGUMENT before any work, and keeps serving', async () => {
    const small = await startTestServer({ reminders: () => fake, maxRequestBytes: 512 });
    try {
      const before = fake.calls.length;
      const big = toBinary(
        InjectTaskReminderRequestSchema,
        create(InjectTaskReminderRequestSchema, {
          taskId: 'task-1',
          reminder: { id: 'big', body: 'x'.repeat(600) },
        }),
      );
      const result = await callRaw(small.target, injectPath, Buffer.from(big), a2aMetadata);
      expect(result.error?.code).toBe(status.INVALID_ARGUMENT);
      expect(result.error?.details).toMatch(/exceeds the limit of 512 bytes/);
      expect(fake.calls.length).toBe(before);
      const after = await callRaw(small.target, injectPath, injectBytes(), a2aMetadata);
      expect(after.error).toBeUndefined();
      expect(fake.calls.length).toBe(before + 1);
    } finally {
      await small.close();
    }
    expect(DEFAULT_MAX_REQUEST_BYTES).toBe(64 * 1024);
  });

  it('checks the raw length before decoding: oversized bytes that do not decode get the size error (W12)', async () => {
    const small = await startTestServer({ reminders: () => fake, maxRequestBytes: 512 });
    try {
      // 600 bytes of an unterminated varint: no decoder could read them.
      const undecodable = Buffer.alloc(600, 0xff);
      const result = await callRaw(small.target, injectPath, undecodable, a2aMetadata);
      expect(result.error?.code).toBe(status.INVALID_ARGUMENT);
      expect(result.error?.details).toBe('request of 600 bytes exceeds the limit of 512 bytes');
      // Under the limit, the same kind of bytes get the decoding error.
      const short = await callRaw(small.target, injectPath, Buffer.alloc(100, 0xff), a2aMetadata);
      expect(short.error?.details).toContain('is not a valid');
    } finally {
      await small.close();
    }
  });

  it("leaves the SDK's A2AService working on the same server", async () => {
    await server.seedTask('sdk-task', TaskState.TASK_STATE_WORKING);
    const getTask = A2AService.getTask;
    const found = await callRaw(
      server.target,
      getTask.path,
      getTask.requestSerialize({ tenant: '', id: 'sdk-task' }),
      { 'a2a-version': '1.0' },
    );
    expect(found.error).toBeUndefined();
    const task = getTask.responseDeserialize(found.response ?? Buffer.alloc(0));
    expect(task.id).toBe('sdk-task');
    expect(task.status?.state).toBe(TaskState.TASK_STATE_WORKING);

    const missing = await callRaw(
      server.target,
      getTask.path,
      getTask.requestSerialize({ tenant: '', id: 'no-such-task' }),
      { 'a2a-version': '1.0' },
    );
    expect(missing.error?.code).toBe(status.NOT_FOUND);
  });
});

function fail(): never {
  throw new Error('expected an error');
}
