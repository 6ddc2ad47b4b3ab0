import { createReminderService, TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import type { BadRequest } from '@a2a-reminders/proto';
import {
  BadRequestSchema,
  InjectTaskReminderRequestSchema,
  ListTaskRemindersRequestSchema,
  ListTaskRemindersResponseSchema,
} from '@a2a-reminders/proto';
import type { JsonObject } from '@bufbuild/protobuf';
import { create, fromBinary, isMessage, toBinary } from '@bufbuild/protobuf';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { status } from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { callRaw, decodeStatusDetails } from './testing/raw-grpc-client.js';
import type { TestServer } from './testing/test-server.js';
import { startTestServer, TaskState } from './testing/test-server.js';

/**
 * Issue 8 §1 and §4 over gRPC with the real core: a Struct holding NaN or
 * ±Infinity, or nested past the decoder's limit, is a typed error that
 * leaves the task listable (R41, R42, R44), reported after authentication and
 * activation (R45).
 */

const SERVICE = '/a2a.reminders.v1.TaskReminderService';
const activated = { 'a2a-version': '1.0', 'a2a-extensions': TASK_REMINDERS_EXTENSION_URI };
const alice = { authorization: 'Bearer alice' };

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(requireAuthentication = false): Promise<TestServer> {
  server = await startTestServer({
    reminders: (deps) => createReminderService({ ...deps, requireAuthentication }),
  });
  await server.seedTask('task-1', TaskState.TASK_STATE_WORKING);
  await server.seedTask('task-a', TaskState.TASK_STATE_WORKING, {
    isAuthenticated: true,
    userName: 'alice',
  });
  return server;
}

function injectBytes(taskId: string, id: string, metadata: JsonObject): Buffer {
  const request = create(InjectTaskReminderRequestSchema, {
    taskId,
    reminder: { id, body: 'b', metadata },
  });
  return Buffer.from(toBinary(InjectTaskReminderRequestSchema, request));
}

/** An inject whose metadata nests `levels` lists, encoded by hand (toBinary recurses). */
function deepInjectBytes(taskId: string, id: string, levels: number): Buffer {
  const LD = WireType.LengthDelimited;
  let value = new BinaryWriter().tag(2, WireType.Bit64).double(1).finish();
  for (let i = 1; i < levels; i += 1) {
    const list = new BinaryWriter().tag(1, LD).bytes(value).finish();
    value = new BinaryWriter().tag(6, LD).bytes(list).finish();
  }
  const entry = new BinaryWriter().tag(1, LD).string('a').tag(2, LD).bytes(value).finish();
  const struct = new BinaryWriter().tag(1, LD).bytes(entry).finish();
  const reminder = new BinaryWriter()
    .tag(1, LD)
    .string(id)
    .tag(2, LD)
    .string('b')
    .tag(7, LD)
    .bytes(struct)
    .finish();
  return Buffer.from(
    new BinaryWriter().tag(2, LD).string(taskId).tag(3, LD).bytes(reminder).finish(),
  );
}

async function inject(target: string, bytes: Buffer, metadata: Record<string, string>) {
  const result = await callRaw(target, `${SERVICE}/InjectTaskReminder`, bytes, metadata);
  const fields =
    result.error === undefined
      ? []
      : decodeStatusDetails(result.error)
          .details.filter((d): d is BadRequest => isMessage(d, BadRequestSchema))
          .flatMap((d) => d.fieldViolations.map((v) => v.field));
  return { code: result.error?.code ?? status.OK, fields };
}

async function listed(target: string, taskId: string, metadata: Record<string, string> = {}) {
  const bytes = toBinary(
    ListTaskRemindersRequestSchema,
    create(ListTaskRemindersRequestSchema, { taskId }),
  );
  const result = await callRaw(target, `${SERVICE}/ListTaskReminders`, Buffer.from(bytes), {
    ...activated,
    ...metadata,
  });
  expect(result.error).toBeUndefined();
  return fromBinary(ListTaskRemindersResponseSchema, result.response ?? Buffer.alloc(0)).reminders;
}

describe('gRPC: a request never poisons a task', () => {
  it('R41: NaN or ±Infinity in a Struct is INVALID_ARGUMENT on its path; a re-send is not a conflict', async () => {
    const { target } = await start();
    for (const [metadata, field] of [
      [{ x: Number.NaN }, 'reminder.metadata.x'],
      [{ a: { b: [Number.POSITIVE_INFINITY] } }, 'reminder.metadata.a.b[0]'],
      [{ y: Number.NEGATIVE_INFINITY }, 'reminder.metadata.y'],
    ] as const) {
      const bytes = injectBytes('task-1', 'nan-1', metadata as JsonObject);
      const expected = { code: status.INVALID_ARGUMENT, fields: [field] };
      expect(await inject(target, bytes, activated)).toEqual(expected);
      // NaN ≠ NaN once made the identical re-send a REMINDER_ID_CONFLICT (R13).
      expect(await inject(target, bytes, activated)).toEqual(expected);
    }
    expect(await listed(target, 'task-1')).toEqual([]);
  });

  it('R42: a Struct nested past the decoder limit, or past 32 levels, is a violation on reminder.metadata', async () => {
    const { target } = await start();
    for (const levels of [40, 60, 400]) {
      expect({
        levels,
        ...(await inject(target, deepInjectBytes('task-1', 'd', levels), activated)),
      }).toEqual({
        levels,
        code: status.INVALID_ARGUMENT,
        fields: ['reminder.metadata'],
      });
    }
    expect(await listed(target, 'task-1')).toEqual([]);
  });

  it('R8: the too-deep Struct does not hide the other violations', async () => {
    const { target } = await start();
    const answer = await inject(target, deepInjectBytes('task-1', 'bad id', 80), activated);
    expect(answer).toEqual({
      code: status.INVALID_ARGUMENT,
      fields: ['reminder.metadata', 'reminder.id'],
    });
  });
});

describe('gRPC: authentication, activation, then validation, whatever the message (R45)', () => {
  const requests: Record<string, [Buffer, string]> = {
    'a NaN in metadata': [injectBytes('task-a', 'r', { x: Number.NaN }), 'reminder.metadata.x'],
    'metadata past the decoder limit': [deepInjectBytes('task-a', 'r', 60), 'reminder.metadata'],
  };
  for (const [name, [bytes, field]] of Object.entries(requests)) {
    it(`orders the checks for ${name}`, async () => {
      const { target } = await start(true);
      expect((await inject(target, bytes, { 'a2a-version': '1.0' })).code).toBe(
        status.UNAUTHENTICATED,
      );
      expect((await inject(target, bytes, { 'a2a-version': '1.0', ...alice })).code).toBe(
        status.FAILED_PRECONDITION,
      );
      expect(await inject(target, bytes, { ...activated, ...alice })).toMatchObject({
        code: status.INVALID_ARGUMENT,
        fields: [field],
      });
      expect(await listed(target, 'task-a', alice)).toEqual([]);
    });
  }
});
