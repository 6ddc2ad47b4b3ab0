import type { ReminderErrorCode } from '@a2a-reminders/core';
import { TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import type { JsonObject, JsonValue } from '@bufbuild/protobuf';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import type { Arm } from './arms.js';
import type { RawOutcome, WireForm } from './raw-call.js';
import { rawCall } from './raw-call.js';
import type { Wire } from './wire.js';

/** `levels` of nested objects and arrays (the metadata object is level 1) around a number. */
export function nestedMetadata(levels: number): JsonObject {
  let value: JsonValue = 1;
  for (let i = 1; i < levels; i += 1) value = i % 2 === 0 ? [value] : { a: value };
  return { a: value };
}

/**
 * An InjectTaskReminderRequest whose metadata nests `levels` lists, encoded by
 * hand from the inside out (toBinary and fromJson recurse and stop near 100).
 */
export function deepMetadataBytes(taskId: string, id: string, levels: number): Buffer {
  const LD = WireType.LengthDelimited;
  let value = new BinaryWriter().tag(2, WireType.Bit64).double(1).finish(); // number_value
  for (let i = 1; i < levels; i += 1) {
    const list = new BinaryWriter().tag(1, LD).bytes(value).finish(); // ListValue.values
    value = new BinaryWriter().tag(6, LD).bytes(list).finish(); // Value.list_value
  }
  const entry = new BinaryWriter().tag(1, LD).string('a').tag(2, LD).bytes(value).finish();
  const struct = new BinaryWriter().tag(1, LD).bytes(entry).finish(); // Struct.fields
  const reminder = new BinaryWriter()
    .tag(1, LD)
    .string(id)
    .tag(2, LD)
    .string('b')
    .tag(7, LD)
    .bytes(struct)
    .finish();
  const request = new BinaryWriter().tag(2, LD).string(taskId).tag(3, LD).bytes(reminder);
  return Buffer.from(request.finish());
}

/** An inject written as raw JSON text, so it can hold what JSON.stringify cannot (1e309). */
export function injectText(taskId: string, reminderJson: string): WireForm {
  return { jsonText: `{"taskId":${JSON.stringify(taskId)},"reminder":${reminderJson}}` };
}

/**
 * A request the binding cannot read in full, in the form the arm sends it
 * (issue 8 §4). `arms` lists the arms that have such a form; all four when
 * absent.
 */
export interface UnreadableCase {
  readonly name: string;
  readonly arms?: readonly Arm[];
  send(wire: Wire, taskId: string, headers: Record<string, string>): Promise<RawOutcome>;
}

const JSON_ARMS: readonly Arm[] = ['direct', 'jsonrpc', 'rest'];

const inject = (
  wire: Wire,
  taskId: string,
  headers: Record<string, string>,
  reminder: JsonObject,
  form: WireForm = {},
) => rawCall(wire, 'InjectTaskReminder', { taskId, reminder }, headers, form);

/**
 * The cases of R45 and of the W8 order-of-checks script. The first two have
 * a form on every arm and give the same answer on each; the JSON cases have
 * none in binary protobuf; the last ones exist only where the binding has
 * such a path or body.
 */
export const UNREADABLE_CASES: readonly UnreadableCase[] = [
  {
    name: 'metadata nested past the binary decoder limit (60 levels)',
    send: (wire, taskId, headers) =>
      inject(wire, taskId, headers, { id: 'deep', body: 'b', metadata: nestedMetadata(60) }),
  },
  {
    name: 'an infinite number in metadata (JSON 1e309)',
    send: (wire, taskId, headers) =>
      wire.arm === 'grpc'
        ? // Binary carries the double itself; the harness's fromJson takes Infinity in a Struct.
          inject(wire, taskId, headers, {
            id: 'inf',
            body: 'b',
            metadata: { x: Number.POSITIVE_INFINITY },
          })
        : inject(
            wire,
            taskId,
            headers,
            {},
            injectText(taskId, '{"id":"inf","body":"b","metadata":{"x":1e309}}'),
          ),
  },
  {
    name: 'ttlTurns "abc"',
    arms: JSON_ARMS,
    send: (wire, taskId, headers) =>
      inject(
        wire,
        taskId,
        headers,
        {},
        injectText(taskId, '{"id":"r","body":"b","ttlTurns":"abc"}'),
      ),
  },
  {
    name: 'ttlTurns "0x10" and a malformed id',
    arms: JSON_ARMS,
    send: (wire, taskId, headers) =>
      inject(
        wire,
        taskId,
        headers,
        {},
        injectText(taskId, '{"id":"bad id","body":"b","ttlTurns":"0x10"}'),
      ),
  },
  {
    name: 'JSON-RPC params that are not an object',
    arms: ['jsonrpc'],
    send: (wire, taskId, headers) => inject(wire, taskId, headers, {}, { jsonText: '"x"' }),
  },
  {
    name: 'a REST body that is an array',
    arms: ['rest'],
    send: (wire, taskId, headers) => inject(wire, taskId, headers, {}, { jsonText: '[]' }),
  },
  {
    name: 'a REST path segment that is not percent-decodable (%zz)',
    arms: ['rest'],
    send: (wire, taskId, headers) =>
      inject(
        wire,
        taskId,
        headers,
        { id: 'r', body: 'b' },
        { restPath: '/tasks/%zz:injectReminder' },
      ),
  },
];

/** The three callers of R45: anonymous and unactivated, known but unactivated, known and activated. */
export function callersOf(user: string): ReadonlyArray<Record<string, string>> {
  const authorization = `Bearer ${user}`;
  return [
    { 'A2A-Version': '1.0' },
    { 'A2A-Version': '1.0', authorization },
    { 'A2A-Version': '1.0', 'A2A-Extensions': TASK_REMINDERS_EXTENSION_URI, authorization },
  ];
}

/** R45: what the three callers get, in order, whatever the body. */
export const ORDER_OF_CHECKS: readonly ReminderErrorCode[] = [
  'UNAUTHENTICATED',
  'EXTENSION_NOT_ACTIVATED',
  'INVALID_ARGUMENT',
];

export function casesFor(arm: Arm): readonly UnreadableCase[] {
  return UNREADABLE_CASES.filter((c) => c.arms === undefined || c.arms.includes(arm));
}
