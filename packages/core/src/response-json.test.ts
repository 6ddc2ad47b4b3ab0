import type { TaskReminderRecord } from '@a2a-reminders/proto';
import {
  CancelTaskReminderResponseSchema,
  InjectTaskReminderResponseSchema,
  ListTaskRemindersResponseSchema,
  ReminderForwardSchema,
  ReminderState,
  TaskReminderRecordSchema,
  TaskReminderSchema,
} from '@a2a-reminders/proto';
import type { DescMessage, JsonObject, JsonValue, MessageShape } from '@bufbuild/protobuf';
import { create, toJson } from '@bufbuild/protobuf';
import type { Timestamp } from '@bufbuild/protobuf/wkt';
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

const text = fc.oneof(fc.constant(''), fc.string(), fc.string({ unit: 'binary' }));
const int32 = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });

/** Timestamps the service writes (whole ms in range), and any other. */
const usualTimestamp = fc
  .integer({ min: -62_135_596_800_000, max: 253_402_300_799_999 })
  .map((ms) => timestampFromMs(ms));
const anyTimestamp: fc.Arbitrary<Timestamp> = fc.oneof(
  usualTimestamp,
  fc
    .record({
      seconds: fc.oneof(
        fc.bigInt({ min: -70_000_000_000n, max: 260_000_000_000n }),
        fc.constantFrom(-62_135_596_800n, -62_135_596_801n, 253_402_300_799n, 253_402_300_800n),
      ),
      nanos: fc.oneof(
        fc.constant(0),
        fc.integer({ min: 0, max: 999 }).map((n) => n * 1_000_000),
        fc.integer({ min: 0, max: 999_999 }).map((n) => n * 1000),
        fc.integer({ min: -2, max: 1_000_000_001 }),
      ),
    })
    .map((t) => create(TimestampSchema, t)),
);

/** Object keys, `__proto__` and integer-like ones included. */
const key = fc.oneof(fc.string(), fc.constantFrom('__proto__', '0', '10', '2', 'constructor'));

/** JSON values, with own `__proto__` keys, made as a JSON parser makes them. */
const usualJson: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.string(),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n)),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.array(fc.tuple(key, tie('value')), { maxLength: 3 }).map(ownObject),
  ),
})).value;

function ownObject(entries: readonly (readonly [string, JsonValue])[]): JsonObject {
  const object: JsonObject = {};
  for (const [k, v] of entries) {
    Object.defineProperty(object, k, {
      value: v,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return object;
}

const usualMetadata = fc.array(fc.tuple(key, usualJson), { maxLength: 4 }).map(ownObject);
/** Metadata with a number JSON cannot hold somewhere inside. */
const unusualMetadata = fc
  .tuple(usualMetadata, key, fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -Infinity))
  .map(([object, k, n]) => ownObject([...Object.entries(object), [k, { nested: [1, n] }]]));

function records(usual: boolean): fc.Arbitrary<TaskReminderRecord> {
  const timestamp = usual ? usualTimestamp : anyTimestamp;
  const state = usual
    ? fc.constantFrom(...Object.values(ReminderState).filter((v) => typeof v === 'number'))
    : fc.integer({ min: -1, max: 9 });
  const forward = fc
    .record({
      taskId: text,
      reminderId: text,
      state,
      refusal: text,
      updateTime: fc.option(timestamp, { nil: undefined }),
    })
    .map((f) => create(ReminderForwardSchema, f));
  const reminder = fc.record(
    {
      id: text,
      body: text,
      dedupeKey: text,
      ttlTurns: int32,
      roleHint: text,
      source: text,
      metadata: usual ? usualMetadata : fc.oneof(usualMetadata, unusualMetadata),
      provenance: fc.record({
        hops: fc.array(fc.record({ taskId: text, reminderId: text, source: text }), {
          maxLength: 3,
        }),
      }),
    },
    { requiredKeys: ['id', 'body', 'dedupeKey', 'roleHint', 'source'] },
  );
  return fc
    .record(
      {
        taskId: text,
        reminder,
        state,
        createTime: timestamp,
        endTime: timestamp,
        firstTurn: int32,
        turnsRemaining: int32,
        displacedBy: text,
        forwards: fc.array(forward, { maxLength: 3 }),
      },
      { requiredKeys: ['taskId', 'state', 'turnsRemaining', 'displacedBy', 'forwards'] },
    )
    .map((r) => create(TaskReminderRecordSchema, r));
}

const injectResponses = (usual: boolean) =>
  fc
    .record({
      record: fc.option(records(usual), { nil: undefined }),
      displacedReminderIds: fc.array(text, { maxLength: 3 }),
      taskState: text,
    })
    .map((r) => create(InjectTaskReminderResponseSchema, r));
const listResponses = (usual: boolean) =>
  fc
    .record({ reminders: fc.array(records(usual), { maxLength: 3 }), nextPageToken: text })
    .map((r) => create(ListTaskRemindersResponseSchema, r));
const cancelResponses = (usual: boolean) =>
  fc
    .record({ record: fc.option(records(usual), { nil: undefined }) })
    .map((r) => create(CancelTaskReminderResponseSchema, r));

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
