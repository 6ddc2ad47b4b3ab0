import {
  CancelTaskReminderResponseSchema,
  InjectTaskReminderRequestSchema,
  InjectTaskReminderResponseSchema,
  ListTaskRemindersResponseSchema,
  ReminderHopSchema,
  TaskReminderRecordSchema,
} from '@a2a-reminders/proto';
import type { DescMessage, MessageShape } from '@bufbuild/protobuf';
import { create, toBinary } from '@bufbuild/protobuf';
import { timestampFromMs } from '@bufbuild/protobuf/wkt';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toMessageBinary, writeMessageBinary } from './message-binary.js';
import {
  cancelResponses,
  injectRequests,
  injectResponses,
  listResponses,
} from './testing/message-arbitraries.js';

// The writer must give exactly the bytes of protobuf-es `toBinary`, and defer
// to it for what it does not write.

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

/** Hex of `toBinary`, or 'throws'. */
function reference<D extends DescMessage>(schema: D, message: MessageShape<D>): string {
  try {
    return hex(toBinary(schema, message));
  } catch {
    return 'throws';
  }
}

function written<D extends DescMessage>(schema: D, message: MessageShape<D>): string {
  try {
    return hex(toMessageBinary(schema, message));
  } catch {
    return 'throws';
  }
}

/** Whether the message holds metadata (a Struct), which the writer leaves to `toBinary`. */
function hasMetadata(message: object): boolean {
  return JSON.stringify(message, (_key, v) => (typeof v === 'bigint' ? String(v) : v)).includes(
    '"metadata":',
  );
}

const cases = (usual: boolean) =>
  fc.tuple(
    injectRequests(usual),
    injectResponses(usual),
    listResponses(usual),
    cancelResponses(usual),
  );

describe('message binary', () => {
  it('gives the bytes of toBinary for any message, usual or not', () => {
    for (const usual of [true, false]) {
      fc.assert(
        fc.property(cases(usual), ([request, inject, list, cancel]) => {
          expect(written(InjectTaskReminderRequestSchema, request)).toBe(
            reference(InjectTaskReminderRequestSchema, request),
          );
          expect(written(InjectTaskReminderResponseSchema, inject)).toBe(
            reference(InjectTaskReminderResponseSchema, inject),
          );
          expect(written(ListTaskRemindersResponseSchema, list)).toBe(
            reference(ListTaskRemindersResponseSchema, list),
          );
          expect(written(CancelTaskReminderResponseSchema, cancel)).toBe(
            reference(CancelTaskReminderResponseSchema, cancel),
          );
        }),
        { numRuns: 300 },
      );
    }
  });

  it('writes every message without metadata itself, and leaves metadata to toBinary', () => {
    const schemas: readonly DescMessage[] = [
      InjectTaskReminderRequestSchema,
      InjectTaskReminderResponseSchema,
      ListTaskRemindersResponseSchema,
      CancelTaskReminderResponseSchema,
    ];
    let writtenHere = 0;
    fc.assert(
      fc.property(cases(false), (messages) => {
        messages.forEach((message, i) => {
          const schema = schemas[i] as DescMessage;
          const bytes = writeMessageBinary(schema, message as never);
          expect(bytes === undefined).toBe(hasMetadata(message));
          if (bytes !== undefined) {
            writtenHere += 1;
            expect(hex(bytes)).toBe(reference(schema, message as never));
          }
        });
      }),
      { numRuns: 200 },
    );
    expect(writtenHere).toBeGreaterThan(0);
  });

  it('leaves unknown fields, a foreign message and a refused value to toBinary, and writes the next message whole', () => {
    const record = create(TaskReminderRecordSchema, {
      taskId: 't',
      reminder: { id: 'r', body: 'b'.repeat(300) },
      createTime: timestampFromMs(1),
    });
    const withUnknown = create(InjectTaskReminderResponseSchema, {
      record: { ...record, $unknown: [{ no: 99, wireType: 2, data: new Uint8Array([1, 7]) }] },
    });
    // A value out of int32's range fails inside the nested record, its fork open.
    const refused = create(CancelTaskReminderResponseSchema, {
      record: { ...record, turnsRemaining: 2 ** 40 },
    });
    // A record field holding a message of another type, which toBinary refuses.
    const foreign = Object.assign(create(CancelTaskReminderResponseSchema), {
      record: { ...record, $typeName: ReminderHopSchema.typeName },
    });
    expect(writeMessageBinary(InjectTaskReminderResponseSchema, withUnknown)).toBeUndefined();
    expect(written(InjectTaskReminderResponseSchema, withUnknown)).toBe(
      reference(InjectTaskReminderResponseSchema, withUnknown),
    );
    expect(reference(InjectTaskReminderResponseSchema, withUnknown)).toContain(
      '9a060107', // field 99, its bytes raw
    );
    for (const message of [refused, foreign]) {
      expect(writeMessageBinary(CancelTaskReminderResponseSchema, message)).toBeUndefined();
      expect(written(CancelTaskReminderResponseSchema, message)).toBe(
        reference(CancelTaskReminderResponseSchema, message),
      );
      const next = create(CancelTaskReminderResponseSchema, { record });
      expect(
        hex(writeMessageBinary(CancelTaskReminderResponseSchema, next) ?? new Uint8Array()),
      ).toBe(reference(CancelTaskReminderResponseSchema, next));
    }
    expect(reference(CancelTaskReminderResponseSchema, refused)).toBe('throws');
    expect(reference(CancelTaskReminderResponseSchema, foreign)).toBe('throws');
  });

  it('leaves a nested message with unknown fields or of another type to toBinary, at any depth', () => {
    const stamp = () => timestampFromMs(1_000);
    const full = () =>
      create(InjectTaskReminderResponseSchema, {
        record: {
          taskId: 't',
          reminder: {
            id: 'r',
            body: 'b',
            provenance: { hops: [{ taskId: 'p', reminderId: 'q' }] },
          },
          createTime: stamp(),
          endTime: stamp(),
          forwards: [{ taskId: 'f', updateTime: stamp() }],
        },
      });
    type Nested = { $typeName: string; $unknown?: unknown };
    const paths: ((m: ReturnType<typeof full>) => Nested)[] = [
      (m) => m,
      (m) => m.record as Nested,
      (m) => m.record?.reminder as Nested,
      (m) => m.record?.reminder?.provenance as Nested,
      (m) => m.record?.reminder?.provenance?.hops[0] as Nested,
      (m) => m.record?.createTime as Nested,
      (m) => m.record?.endTime as Nested,
      (m) => m.record?.forwards[0] as Nested,
      (m) => m.record?.forwards[0]?.updateTime as Nested,
    ];
    expect(writeMessageBinary(InjectTaskReminderResponseSchema, full())).toBeDefined();
    for (const [i, at] of paths.entries()) {
      const withUnknown = full();
      at(withUnknown).$unknown = [{ no: 99, wireType: 0, data: new Uint8Array([5]) }];
      const foreign = full();
      at(foreign).$typeName = ReminderHopSchema.typeName;
      if (i === 4) at(foreign).$typeName = TaskReminderRecordSchema.typeName;
      for (const message of [withUnknown, foreign]) {
        expect(
          writeMessageBinary(InjectTaskReminderResponseSchema, message),
          `path ${i}`,
        ).toBeUndefined();
        expect(written(InjectTaskReminderResponseSchema, message)).toBe(
          reference(InjectTaskReminderResponseSchema, message),
        );
      }
    }
  });

  it('leaves a Timestamp with int64 as a string (BUF_BIGINT_DISABLE) to toBinary', () => {
    const response = create(CancelTaskReminderResponseSchema, {
      record: { taskId: 't', createTime: { seconds: '0' as never, nanos: 5 } },
    });
    expect(writeMessageBinary(CancelTaskReminderResponseSchema, response)).toBeUndefined();
    expect(written(CancelTaskReminderResponseSchema, response)).toBe(
      reference(CancelTaskReminderResponseSchema, response),
    );
  });

  it('gives other messages to toBinary', () => {
    const record = create(TaskReminderRecordSchema, { taskId: 't', state: 1 });
    expect(writeMessageBinary(TaskReminderRecordSchema, record)).toBeUndefined();
    expect(hex(toMessageBinary(TaskReminderRecordSchema, record))).toBe(
      reference(TaskReminderRecordSchema, record),
    );
  });
});
