import type { ReminderError } from '@a2a-reminders/core';
import { TaskReminderRecordSchema } from '@a2a-reminders/proto';
import type { JsonObject, JsonValue } from '@bufbuild/protobuf';
import { fromBinary, fromJson, fromJsonString, toBinary, toJsonString } from '@bufbuild/protobuf';
import { expect } from 'vitest';
import type { Arm } from '../harness/arms.js';
import type { RawOutcome } from '../harness/raw-call.js';
import { onArm, rawCall } from '../harness/raw-call.js';
import { ACTIVATED_HEADERS } from '../harness/raw-wire.js';
import {
  callersOf,
  casesFor,
  deepMetadataBytes,
  injectText,
  nestedMetadata,
  ORDER_OF_CHECKS,
} from '../harness/unreadable-requests.js';
import { as } from '../harness/users.js';
import { verifies } from '../harness/verifies.js';
import type { Wire } from '../harness/wire.js';

/** `CODE field,field` of an outcome, or `ok`. */
function verdict(outcome: RawOutcome): string {
  if (outcome.ok) return 'ok';
  return `${outcome.error.code} ${outcome.error.fieldViolations.map((v) => v.field).join(',')}`;
}

const BINDINGS: readonly Arm[] = ['jsonrpc', 'rest', 'grpc'];

/**
 * The task's records as each binding of the stack lists them (ProtoJSON),
 * whatever the arm under test: a record one binding cannot serialize shows
 * up here as an error (issue 8 §1).
 */
async function listEverywhere(
  wire: Wire,
  taskId: string,
  headers: Record<string, string> = ACTIVATED_HEADERS,
): Promise<Record<string, JsonValue>> {
  const out: Record<string, JsonValue> = {};
  for (const arm of BINDINGS) {
    const outcome = await rawCall(onArm(wire, arm), 'ListTaskReminders', { taskId }, headers);
    out[arm] = outcome.ok ? (outcome.json.reminders ?? []) : verdict(outcome);
  }
  return out;
}

function same(value: JsonValue): Record<string, JsonValue> {
  return Object.fromEntries(BINDINGS.map((arm) => [arm, value]));
}

verifies('R41-metadata-finite-numbers', async ({ arm, wire }) => {
  const taskId = await wire.tasks.create();
  const cases: Array<[string, string]> = [
    ['{"x":1e309}', 'reminder.metadata.x'],
    ['{"a":{"b":[1,-1e309]}}', 'reminder.metadata.a.b[1]'],
  ];
  for (const [metadata, field] of cases) {
    const reminder = `{"id":"inf","body":"hello","metadata":${metadata}}`;
    // Binary has no JSON text: the same numbers travel as doubles in the Struct.
    const outcome =
      arm === 'grpc'
        ? await rawCall(
            wire,
            'InjectTaskReminder',
            fromJsonText(taskId, reminder),
            ACTIVATED_HEADERS,
          )
        : await rawCall(
            wire,
            'InjectTaskReminder',
            { taskId },
            ACTIVATED_HEADERS,
            injectText(taskId, reminder),
          );
    expect(verdict(outcome)).toBe(`INVALID_ARGUMENT ${field}`);
  }
  if (arm === 'direct' || arm === 'grpc') {
    // NaN exists only in process and in binary; an identical re-send is refused the same way.
    for (let i = 0; i < 2; i += 1) {
      const nan = await rawCall(
        wire,
        'InjectTaskReminder',
        { taskId, reminder: { id: 'nan', body: 'b', metadata: { x: Number.NaN } } },
        ACTIVATED_HEADERS,
      );
      expect(verdict(nan)).toBe('INVALID_ARGUMENT reminder.metadata.x');
    }
  }
  // Nothing was stored: the task lists, empty, on every binding.
  expect(await listEverywhere(wire, taskId)).toEqual(same([]));
});

/** A parsed JSON request in which 1e309 has become Infinity, as JSON.parse makes it. */
function fromJsonText(taskId: string, reminder: string): JsonObject {
  return { taskId, reminder: JSON.parse(reminder) as JsonValue };
}

verifies('R42-metadata-depth', async ({ arm, wire }) => {
  const taskId = await wire.tasks.create();
  const edge = await rawCall(
    wire,
    'InjectTaskReminder',
    { taskId, reminder: { id: 'edge', body: 'b', metadata: nestedMetadata(32) } },
    ACTIVATED_HEADERS,
  );
  expect(verdict(edge)).toBe('ok');
  // 33 decodes everywhere; 60 is past the binary decoder; 150 past the JSON one.
  for (const levels of [33, 60, 150]) {
    const outcome =
      arm === 'grpc'
        ? await rawCall(wire, 'InjectTaskReminder', { taskId }, ACTIVATED_HEADERS, {
            grpcBytes: deepMetadataBytes(taskId, 'deep', levels),
          })
        : await rawCall(
            wire,
            'InjectTaskReminder',
            { taskId, reminder: { id: 'deep', body: 'b', metadata: nestedMetadata(levels) } },
            ACTIVATED_HEADERS,
          );
    expect({ levels, verdict: verdict(outcome) }).toEqual({
      levels,
      verdict: 'INVALID_ARGUMENT reminder.metadata',
    });
    // The spec fixes the field, not the wording (core's own tests hold its text).
    if (!outcome.ok) expect(outcome.error.fieldViolations[0]?.description).toMatch(/\S/);
  }
  const listed = await listEverywhere(wire, taskId);
  for (const arm of BINDINGS) {
    expect((listed[arm] as JsonObject[]).map((r) => (r.reminder as JsonObject).id)).toEqual([
      'edge',
    ]);
  }
});

verifies('R43-protojson-strictness', async ({ wire }) => {
  const taskId = await wire.tasks.create();
  // Integers: a JSON number or a string holding one in decimal, nothing else.
  for (const ttl of ['"0x10"', '"0b1"', '"+5"', '" 5"', '"010"', '"Infinity"']) {
    const outcome = await rawCall(
      wire,
      'InjectTaskReminder',
      { taskId },
      ACTIVATED_HEADERS,
      injectText(taskId, `{"id":"t","body":"b","ttlTurns":${ttl}}`),
    );
    expect({ ttl, verdict: verdict(outcome) }).toEqual({
      ttl,
      verdict: 'INVALID_ARGUMENT reminder.ttlTurns',
    });
  }
  for (const [ttl, effective] of [
    ['"3"', 3],
    ['2', 2],
    ['"1e1"', 10],
  ] as const) {
    const outcome = await rawCall(
      wire,
      'InjectTaskReminder',
      { taskId },
      ACTIVATED_HEADERS,
      injectText(taskId, `{"id":"ok-${effective}","body":"b","ttlTurns":${ttl}}`),
    );
    expect(outcome.ok && (outcome.json.record as JsonObject).reminder).toMatchObject({
      ttlTurns: effective,
    });
  }
  // Lone surrogates: refused in metadata values and keys as in every string field.
  const lone: Array<[string, string]> = [
    ['{"id":"s1","body":"b","metadata":{"k":"a\\ud800"}}', 'reminder.metadata.k'],
    ['{"id":"s2","body":"b","metadata":{"\\udfff":1}}', 'reminder.metadata["\\udfff"]'],
    ['{"id":"s3","body":"b\\ud83d"}', 'reminder.body'],
  ];
  for (const [reminder, field] of lone) {
    const outcome = await rawCall(
      wire,
      'InjectTaskReminder',
      { taskId },
      ACTIVATED_HEADERS,
      injectText(taskId, reminder),
    );
    expect(verdict(outcome)).toBe(`INVALID_ARGUMENT ${field}`);
  }
  // Our own client on the arm sends the same string and gets the same refusal.
  const client = await wire.client
    .injectTaskReminder({ taskId, reminder: { id: 's4', body: 'b', metadata: { k: '\uDC00' } } })
    .then(
      () => 'ok',
      (e: ReminderError) => `${e.code} ${e.fieldViolations.map((v) => v.field).join(',')}`,
    );
  expect(client).toBe('INVALID_ARGUMENT reminder.metadata.k');
  expect((await wire.client.listTaskReminders({ taskId })).reminders.length).toBe(3);
});

/** Values every binding carries, and bytes that only look alike. */
const TRICKY: JsonObject[] = [
  { astral: '😀 𝄞', nul: 'a\u0000b', quote: '"\'\\', sep: '\u2028' },
  { big: 2 ** 53, tiny: 5e-324, max: 1.7976931348623157e308, neg: -0, frac: 0.1 },
  { '': { 'a.b': [[], {}, null, true, ['x', 1.5]] }, '[0]': 'key' },
];

verifies('R44-stored-records-serialize', async ({ arm, wire }) => {
  const taskId = await wire.tasks.create();
  for (const [i, metadata] of TRICKY.entries()) {
    const outcome = await rawCall(
      wire,
      'InjectTaskReminder',
      { taskId, reminder: { id: `t${i}`, body: `tricky ${i}`, metadata } },
      ACTIVATED_HEADERS,
    );
    expect({ i, verdict: verdict(outcome) }).toEqual({ i, verdict: 'ok' });
  }
  // Refused hostile values leave nothing behind: NaN in binary, -1e999 (-Infinity) in JSON.
  const refused =
    arm === 'grpc'
      ? await rawCall(
          wire,
          'InjectTaskReminder',
          { taskId, reminder: { id: 'bad', body: 'b', metadata: { x: Number.NaN } } },
          ACTIVATED_HEADERS,
        )
      : await rawCall(
          wire,
          'InjectTaskReminder',
          { taskId },
          ACTIVATED_HEADERS,
          injectText(taskId, '{"id":"bad","body":"b","metadata":{"x":-1e999}}'),
        );
  expect(verdict(refused)).toMatch(/^INVALID_ARGUMENT reminder\.metadata/);

  // Every binding lists the same ProtoJSON, and each record round-trips through both forms.
  const listed = await listEverywhere(wire, taskId);
  expect(listed.rest).toEqual(listed.jsonrpc);
  expect(listed.grpc).toEqual(listed.jsonrpc);
  const records = listed.jsonrpc as JsonObject[];
  expect(records.map((r) => (r.reminder as JsonObject).id)).toEqual(['t0', 't1', 't2']);
  for (const json of records) {
    const record = fromJson(TaskReminderRecordSchema, json);
    const viaBinary = fromBinary(
      TaskReminderRecordSchema,
      toBinary(TaskReminderRecordSchema, record),
    );
    const viaText = fromJsonString(
      TaskReminderRecordSchema,
      toJsonString(TaskReminderRecordSchema, record),
    );
    expect(toJsonString(TaskReminderRecordSchema, viaBinary)).toBe(
      toJsonString(TaskReminderRecordSchema, record),
    );
    expect(toJsonString(TaskReminderRecordSchema, viaText)).toBe(
      toJsonString(TaskReminderRecordSchema, record),
    );
  }
  // What was sent is what is listed (ProtoJSON writes -0 as 0).
  expect(records.map((r) => (r.reminder as JsonObject).metadata)).toEqual(
    JSON.parse(JSON.stringify(TRICKY)),
  );
});

verifies(
  'R45-order-of-checks-on-the-wire',
  async ({ arm, wire }) => {
    const taskId = await wire.tasks.create({ user: 'alice' });
    for (const unreadable of casesFor(arm)) {
      const codes: string[] = [];
      for (const headers of callersOf('alice')) {
        const outcome = await unreadable.send(wire, taskId, headers);
        codes.push(outcome.ok ? 'ok' : outcome.error.code);
      }
      expect({ case: unreadable.name, codes }).toEqual({
        case: unreadable.name,
        codes: ORDER_OF_CHECKS,
      });
    }
    expect(await listEverywhere(wire, taskId, { ...ACTIVATED_HEADERS, ...as('alice') })).toEqual(
      same([]),
    );
  },
  { stack: { requireAuthentication: true } },
);
