import type { TaskReminderRecord } from '@a2a-reminders/proto';
import {
  CancelTaskReminderResponseSchema,
  InjectTaskReminderResponseSchema,
  ListTaskRemindersResponseSchema,
  ReminderState,
  TaskReminderRecordSchema,
  TaskReminderSchema,
} from '@a2a-reminders/proto';
import type { DescMessage, MessageShape } from '@bufbuild/protobuf';
import { create, toJson } from '@bufbuild/protobuf';
import { TimestampSchema, timestampFromMs } from '@bufbuild/protobuf/wkt';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toResponseJson } from './protojson.js';
import {
  cancelResponseJson,
  injectResponseJson,
  listResponseJson,
  RESPONSE_JSON_WRITERS,
} from './response-json.js';
import { cancelResponses, injectResponses, listResponses } from './testing/message-arbitraries.js';

// The writer must give exactly what protobuf-es `toJson` gives (as JSON text,
// so key order counts), and defer to it for anything unusual.

/** JSON text of `toJson`, or 'throws'. */
function reference<D extends DescMessage>(schema: D, message: MessageShape<D>): string {
  try {
    return JSON.stringify(toJson(schema, message));
  } catch {
    return 'throws';
  }
}

function viaResponseJson<D extends DescMessage>(schema: D, message: MessageShape<D>): string {
  try {
    return JSON.stringify(toResponseJson(schema, message));
  } catch {
    return 'throws';
  }
}

describe('response JSON', () => {
  it('covers the responses of every rpc', () => {
    expect([...RESPONSE_JSON_WRITERS.keys()].sort()).toEqual(
      [
        InjectTaskReminderResponseSchema.typeName,
        ListTaskRemindersResponseSchema.typeName,
        CancelTaskReminderResponseSchema.typeName,
      ].sort(),
    );
  });

  it('writes what the service answers exactly as toJson, without deferring to it', () => {
    fc.assert(
      fc.property(injectResponses(true), listResponses(true), cancelResponses(true), (i, l, c) => {
        const written = [injectResponseJson(i), listResponseJson(l), cancelResponseJson(c)];
        expect(written.map((w) => (w === undefined ? 'deferred' : JSON.stringify(w)))).toEqual([
          reference(InjectTaskReminderResponseSchema, i),
          reference(ListTaskRemindersResponseSchema, l),
          reference(CancelTaskReminderResponseSchema, c),
        ]);
      }),
      { numRuns: 300 },
    );
  });

  it('answers any response as toJson does, refusals included, and defers only what toJson writes or refuses unusually', () => {
    fc.assert(
      fc.property(
        injectResponses(false),
        listResponses(false),
        cancelResponses(false),
        (i, l, c) => {
          expect(viaResponseJson(InjectTaskReminderResponseSchema, i)).toBe(
            reference(InjectTaskReminderResponseSchema, i),
          );
          expect(viaResponseJson(ListTaskRemindersResponseSchema, l)).toBe(
            reference(ListTaskRemindersResponseSchema, l),
          );
          expect(viaResponseJson(CancelTaskReminderResponseSchema, c)).toBe(
            reference(CancelTaskReminderResponseSchema, c),
          );
          // Whatever the writer does write is toJson's text.
          const written = injectResponseJson(i);
          if (written !== undefined) {
            expect(JSON.stringify(written)).toBe(reference(InjectTaskReminderResponseSchema, i));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('defers a Timestamp out of range, metadata that is not plain JSON and a nameless enum value to toJson, which refuses or writes them', () => {
    const base = create(TaskReminderRecordSchema, {
      taskId: 't',
      reminder: { id: 'r', body: 'b' },
      state: ReminderState.PENDING,
      createTime: timestampFromMs(0),
    });
    const unusual: TaskReminderRecord[] = [
      { ...base, createTime: create(TimestampSchema, { seconds: 253_402_300_800n }) },
      { ...base, endTime: create(TimestampSchema, { seconds: 0n, nanos: -1 }) },
      {
        ...base,
        reminder: create(TaskReminderSchema, { id: 'r', body: 'b', metadata: { n: Number.NaN } }),
      },
      { ...base, state: 42 as ReminderState },
      // Not JSON at all: nothing on the wire or in a store makes these, but
      // toJson decides what they become.
      ...[{ u: undefined }, { d: new Date(0) }, { b: 1n }].map((metadata) => ({
        ...base,
        reminder: create(TaskReminderSchema, { id: 'r', body: 'b', metadata: metadata as never }),
      })),
    ];
    for (const record of unusual) {
      const response = create(CancelTaskReminderResponseSchema, { record });
      expect(cancelResponseJson(response)).toBeUndefined();
      expect(viaResponseJson(CancelTaskReminderResponseSchema, response)).toBe(
        reference(CancelTaskReminderResponseSchema, response),
      );
    }
    // The nameless enum value is written as its number.
    const named = create(CancelTaskReminderResponseSchema, { record: unusual[3] });
    expect(JSON.stringify(toResponseJson(CancelTaskReminderResponseSchema, named))).toContain(
      '"state":42',
    );
  });
});
