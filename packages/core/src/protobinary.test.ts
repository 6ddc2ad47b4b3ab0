import { InjectTaskReminderRequestSchema } from '@a2a-reminders/proto';
import type { JsonValue } from '@bufbuild/protobuf';
import { create, toBinary } from '@bufbuild/protobuf';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { describe, expect, it } from 'vitest';
import { ReminderError } from './errors.js';
import { readRequestBinary } from './protobinary.js';

/** `levels` nested objects and arrays, alternating, around a number. */
function nested(levels: number): { [key: string]: JsonValue } {
  let value: JsonValue = 1;
  for (let i = 1; i < levels; i += 1) value = i % 2 === 0 ? [value] : { a: value };
  return { a: value };
}

function bytesOf(metadata: { [key: string]: JsonValue }): Uint8Array {
  return toBinary(
    InjectTaskReminderRequestSchema,
    create(InjectTaskReminderRequestSchema, {
      tenant: 'acme',
      taskId: 't1',
      reminder: { id: 'r1', body: 'b', ttlTurns: 2, metadata },
    }),
  );
}

/**
 * The request with `levels` of nested lists as metadata, encoded by hand from
 * the inside out: toBinary itself recurses and would exhaust the stack.
 */
function deepBytes(levels: number): Uint8Array {
  const LD = WireType.LengthDelimited;
  let value = new BinaryWriter().tag(2, WireType.Bit64).double(1).finish(); // Value.number_value
  for (let i = 1; i < levels; i += 1) {
    const list = new BinaryWriter().tag(1, LD).bytes(value).finish(); // ListValue.values
    value = new BinaryWriter().tag(6, LD).bytes(list).finish(); // Value.list_value
  }
  const entry = new BinaryWriter().tag(1, LD).string('a').tag(2, LD).bytes(value).finish();
  const struct = new BinaryWriter().tag(1, LD).bytes(entry).finish(); // Struct.fields
  const reminder = new BinaryWriter()
    .tag(1, LD)
    .string('r1')
    .tag(2, LD)
    .string('b')
    .tag(4, WireType.Varint)
    .int32(2)
    .tag(7, LD)
    .bytes(struct)
    .finish();
  return new BinaryWriter()
    .tag(1, LD)
    .string('acme')
    .tag(2, LD)
    .string('t1')
    .tag(3, LD)
    .bytes(reminder)
    .finish();
}

describe('reading binary protobuf (gRPC)', () => {
  it('reads a request whole when it decodes', () => {
    const read = readRequestBinary(InjectTaskReminderRequestSchema, bytesOf({ k: [1, 'x'] }));
    expect(read.violations).toEqual([]);
    expect(read.request.reminder?.metadata).toEqual({ k: [1, 'x'] });
  });

  it('R42: a Struct nested past the decoder recursion limit is a violation on its field, the rest is read', () => {
    // protobuf-es decodes about 49 levels of Struct in binary; 60 and 1000 are past it.
    expect(readRequestBinary(InjectTaskReminderRequestSchema, deepBytes(32)).violations).toEqual(
      [],
    );
    for (const bytes of [bytesOf(nested(60)), deepBytes(60), deepBytes(1000)]) {
      const read = readRequestBinary(InjectTaskReminderRequestSchema, bytes);
      expect(read.violations).toEqual([
        {
          field: 'reminder.metadata',
          description: 'must nest at most 32 levels of objects and arrays',
        },
      ]);
      expect(read.request.tenant).toBe('acme');
      expect(read.request.taskId).toBe('t1');
      expect(read.request.reminder?.id).toBe('r1');
      expect(read.request.reminder?.ttlTurns).toBe(2);
      expect(read.request.reminder?.metadata).toBeUndefined();
    }
  });

  it('W3: bytes that are not a message stay an envelope error, thrown as INVALID_ARGUMENT', () => {
    for (const bytes of [Uint8Array.of(0xff, 0xff, 0xff), Uint8Array.of(0x1a, 0x05, 0x0a)]) {
      let thrown: unknown;
      try {
        readRequestBinary(InjectTaskReminderRequestSchema, bytes);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ReminderError);
      expect((thrown as ReminderError).code).toBe('INVALID_ARGUMENT');
      expect((thrown as ReminderError).fieldViolations).toEqual([]);
    }
  });
});
