// fast-check arbitraries of the rpcs' messages, for the tests that hold
// core's hand-written encoders (ProtoJSON, binary) to protobuf-es.
import type { TaskReminderRecord } from '@a2a-reminders/proto';
import {
  CancelTaskReminderResponseSchema,
  InjectTaskReminderRequestSchema,
  InjectTaskReminderResponseSchema,
  ListTaskRemindersResponseSchema,
  ReminderForwardSchema,
  ReminderState,
  TaskReminderRecordSchema,
} from '@a2a-reminders/proto';
import type { JsonObject, JsonValue } from '@bufbuild/protobuf';
import { create } from '@bufbuild/protobuf';
import type { Timestamp } from '@bufbuild/protobuf/wkt';
import { TimestampSchema, timestampFromMs } from '@bufbuild/protobuf/wkt';
import fc from 'fast-check';

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

/** A TaskReminder's fields, as a message's init takes them (usual: metadata JSON can hold). */
function reminders(usual: boolean) {
  return fc.record(
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
}

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
  const reminder = reminders(usual);
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

export const injectResponses = (usual: boolean) =>
  fc
    .record({
      record: fc.option(records(usual), { nil: undefined }),
      displacedReminderIds: fc.array(text, { maxLength: 3 }),
      taskState: text,
    })
    .map((r) => create(InjectTaskReminderResponseSchema, r));
export const listResponses = (usual: boolean) =>
  fc
    .record({ reminders: fc.array(records(usual), { maxLength: 3 }), nextPageToken: text })
    .map((r) => create(ListTaskRemindersResponseSchema, r));
export const cancelResponses = (usual: boolean) =>
  fc
    .record({ record: fc.option(records(usual), { nil: undefined }) })
    .map((r) => create(CancelTaskReminderResponseSchema, r));

export const injectRequests = (usual: boolean) =>
  fc
    .record({
      tenant: text,
      taskId: text,
      reminder: fc.option(reminders(usual), { nil: undefined }),
    })
    .map((r) => create(InjectTaskReminderRequestSchema, r));
