import { TaskState } from '@a2a-js/sdk';
import type { InjectTaskReminderRequest, ListTaskRemindersResponse } from '@a2a-reminders/proto';
import {
  InjectTaskReminderRequestSchema,
  ListTaskRemindersResponseSchema,
  TaskReminderRecordSchema,
} from '@a2a-reminders/proto';
import type { JsonObject, JsonValue } from '@bufbuild/protobuf';
import {
  create,
  equals,
  fromBinary,
  fromJsonString,
  toBinary,
  toJsonString,
} from '@bufbuild/protobuf';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ReminderError } from './errors.js';
import { readRequestBinary } from './protobinary.js';
import { readRequestJson } from './protojson.js';
import type { ReadRequest } from './read-request.js';
import type { ReminderInit } from './testing/harness.js';
import { harness } from './testing/harness.js';

/**
 * R44 as an invariant: whatever callers send, in process, as ProtoJSON or as
 * binary, every record the service stores lists, and round-trips through
 * ProtoJSON text and binary protobuf unchanged (issue 8 §1). Inputs lean
 * hostile: NaN, ±Infinity, -0, lone surrogates and deep nesting.
 */

const text = fc
  .array(
    fc.oneof(
      fc.string({ maxLength: 4 }),
      fc.constantFrom('\uD800', 'a\uDFFF', '\uD83D', '😀', '\u0000', 'é', '__proto__'),
    ),
    { maxLength: 4 },
  )
  .map((parts) => parts.join(''));

const number = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0, 1e308),
);

const { tree } = fc.letrec<{ tree: JsonValue }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    number,
    text,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('tree'), { maxLength: 3 }),
    fc.dictionary(text, tie('tree'), { maxKeys: 3 }),
  ),
}));

/** Nesting around the parsers' depth limits (R42: 32 levels; binary stops near 49, JSON near 97). */
const deep = fc.integer({ min: 28, max: 110 }).map((levels) => {
  let value: JsonValue = 1;
  for (let i = 1; i < levels; i += 1) value = i % 3 === 0 ? [value] : { k: value };
  return { k: value } as JsonObject;
});

const metadata = fc.option(fc.oneof(fc.dictionary(text, tree, { maxKeys: 4 }), deep), {
  nil: undefined,
});

const reminder: fc.Arbitrary<ReminderInit> = fc.record({
  id: fc.constantFrom('a', 'b', 'c'),
  body: fc.oneof(fc.constant('hello'), text),
  source: fc.oneof(fc.constant(''), text),
  ttlTurns: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
  metadata,
});

type Path = 'process' | 'json' | 'binary';

/** The request as the service receives it on each path, with what the binding could not read. */
function received(
  taskId: string,
  init: ReminderInit,
  path: Path,
): ReadRequest<InjectTaskReminderRequest> {
  const typed = create(InjectTaskReminderRequestSchema, { taskId, reminder: init });
  if (path === 'process') return { request: typed, violations: [] };
  if (path === 'binary') {
    return readRequestBinary(
      InjectTaskReminderRequestSchema,
      toBinary(InjectTaskReminderRequestSchema, typed),
    );
  }
  // The JSON a caller could send: NaN has no JSON form, but 1e309 parses to Infinity.
  return readRequestJson(InjectTaskReminderRequestSchema, { taskId, reminder: init });
}

const REFUSALS = ['INVALID_ARGUMENT', 'REMINDER_ID_CONFLICT'];

function expectRoundTrips(listed: ListTaskRemindersResponse): void {
  // The whole response serializes on every binding.
  const viaJson = fromJsonString(
    ListTaskRemindersResponseSchema,
    toJsonString(ListTaskRemindersResponseSchema, listed),
  );
  const viaBinary = fromBinary(
    ListTaskRemindersResponseSchema,
    toBinary(ListTaskRemindersResponseSchema, listed),
  );
  expect(equals(ListTaskRemindersResponseSchema, viaJson, listed)).toBe(true);
  expect(equals(ListTaskRemindersResponseSchema, viaBinary, listed)).toBe(true);
  for (const record of listed.reminders) {
    // Each record comes back identical, -0 and 0 told apart: both wire forms list the same value.
    expect(
      fromJsonString(TaskReminderRecordSchema, toJsonString(TaskReminderRecordSchema, record)),
    ).toEqual(record);
    expect(
      fromBinary(TaskReminderRecordSchema, toBinary(TaskReminderRecordSchema, record)),
    ).toEqual(record);
  }
}

describe('every stored record round-trips through ProtoJSON and binary (R44)', () => {
  it('holds for any sequence of injects on any path, and identical re-sends stay idempotent (R13)', async () => {
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(reminder, fc.constantFrom<Path>('process', 'json', 'binary')), {
          minLength: 1,
          maxLength: 8,
        }),
        async (calls) => {
          const h = harness();
          await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
          for (const [init, path] of calls) {
            const { request, violations } = received('t1', init, path);
            let first: unknown;
            try {
              first = await h.service.injectTaskReminder(request, h.ctx, violations);
            } catch (error) {
              expect(error).toBeInstanceOf(ReminderError);
              expect(REFUSALS).toContain((error as ReminderError).code);
              seen.add(`${path} refused`);
              continue;
            }
            seen.add(`${path} accepted`);
            // Accepted: an identical re-send returns the original response (R13).
            const again = await h.service.injectTaskReminder(request, h.ctx, violations);
            expect(again).toEqual(first);
          }
          expectRoundTrips(await h.list('t1'));
        },
      ),
      { numRuns: 150 },
    );
    // The inputs reached both outcomes on every path.
    expect([...seen].sort()).toEqual([
      'binary accepted',
      'binary refused',
      'json accepted',
      'json refused',
      'process accepted',
      'process refused',
    ]);
  });

  // Found by the property above: a protobuf-es runtime that writes a Struct's
  // keys by assignment drops `__proto__`, so the record would list differently.
  it('keeps a `__proto__` metadata key on every path and through both wire forms', async () => {
    const metadata = JSON.parse('{"__proto__":0,"a":{"__proto__":[1]}}') as JsonObject;
    for (const path of ['process', 'json', 'binary'] as const) {
      const h = harness();
      await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
      const { request, violations } = received('t1', { id: 'r1', body: 'b', metadata }, path);
      await h.service.injectTaskReminder(request, h.ctx, violations);
      const listed = await h.list('t1');
      expectRoundTrips(listed);
      const stored = listed.reminders[0]?.reminder?.metadata;
      expect([path, JSON.stringify(stored)]).toEqual([
        path,
        '{"__proto__":0,"a":{"__proto__":[1]}}',
      ]);
    }
  });
});
