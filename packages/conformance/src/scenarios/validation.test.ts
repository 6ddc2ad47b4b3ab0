import type { JsonObject } from '@bufbuild/protobuf';
import { expect } from 'vitest';
import { reminderError } from '../harness/observe.js';
import { rawCall } from '../harness/raw-call.js';
import { ACTIVATED_HEADERS } from '../harness/raw-wire.js';
import { verifies } from '../harness/verifies.js';

const fieldsOf = (error: { fieldViolations: readonly { field: string }[] }) =>
  error.fieldViolations.map((v) => v.field).sort();

verifies('R8-validation-reporting', async ({ arm, wire }) => {
  const taskId = await wire.tasks.create();
  const error = await reminderError(
    wire.client.injectTaskReminder({
      taskId,
      reminder: { id: 'not valid!', body: '   ', ttlTurns: 0 },
    }),
    'INVALID_ARGUMENT',
  );
  expect(fieldsOf(error)).toEqual(['reminder.body', 'reminder.id', 'reminder.ttlTurns']);
  for (const v of error.fieldViolations) expect(v.description).not.toBe('');
  // Validation comes before the task lookup.
  const unknownTask = await reminderError(
    wire.client.injectTaskReminder({ taskId: 'no-such-task', reminder: { id: 'ok', body: '' } }),
    'INVALID_ARGUMENT',
  );
  expect(fieldsOf(unknownTask)).toEqual(['reminder.body']);
  expect((await wire.client.listTaskReminders({ taskId })).reminders).toEqual([]);

  if (arm === 'jsonrpc' || arm === 'rest') {
    // A JSON value the schema cannot read is reported with its path; unknown fields are ignored.
    const typed = await rawCall(
      wire,
      'InjectTaskReminder',
      { taskId, reminder: { id: 'r1', body: 'x', ttlTurns: 'three' } } as unknown as JsonObject,
      ACTIVATED_HEADERS,
    );
    expect(typed.ok).toBe(false);
    if (!typed.ok) {
      expect(typed.error.code).toBe('INVALID_ARGUMENT');
      expect(fieldsOf(typed.error)).toEqual(['reminder.ttlTurns']);
    }
    const unknown = await rawCall(
      wire,
      'InjectTaskReminder',
      { taskId, reminder: { id: 'r2', body: 'x', futureField: 1 }, alsoUnknown: true },
      ACTIVATED_HEADERS,
    );
    expect(unknown.ok).toBe(true);
  }
});

const long = (n: number) => 'a'.repeat(n);

verifies('R9-field-rules', async ({ wire }) => {
  const taskId = await wire.tasks.create();
  const base = { id: 'r', body: 'fine' };
  const rejected: Array<[string, JsonObject]> = [
    ['reminder', {}],
    ['reminder.id', { reminder: { ...base, id: '' } }],
    ['reminder.id', { reminder: { ...base, id: long(129) } }],
    ['reminder.id', { reminder: { ...base, id: 'has space' } }],
    ['reminder.id', { reminder: { ...base, id: 'slash/id' } }],
    ['reminder.body', { reminder: { ...base, body: '' } }],
    ['reminder.body', { reminder: { ...base, body: ' \n\t ' } }],
    ['reminder.body', { reminder: { ...base, body: long(4097) } }],
    ['reminder.body', { reminder: { ...base, body: 'bell\u0007' } }],
    ['reminder.body', { reminder: { ...base, body: 'esc\u001b[0m' } }],
    ['reminder.dedupeKey', { reminder: { ...base, dedupeKey: long(257) } }],
    ['reminder.ttlTurns', { reminder: { ...base, ttlTurns: 0 } }],
    ['reminder.ttlTurns', { reminder: { ...base, ttlTurns: 21 } }],
    ['reminder.ttlTurns', { reminder: { ...base, ttlTurns: -1 } }],
    ['reminder.roleHint', { reminder: { ...base, roleHint: long(33) } }],
    ['reminder.source', { reminder: { ...base, source: long(257) } }],
    ['reminder.metadata', { reminder: { ...base, metadata: { blob: long(16 * 1024) } } }],
  ];
  for (const [field, request] of rejected) {
    const outcome = await rawCall(
      wire,
      'InjectTaskReminder',
      { taskId, ...request },
      ACTIVATED_HEADERS,
    );
    const got = outcome.ok
      ? 'accepted'
      : `${outcome.error.code} ${fieldsOf(outcome.error).join(',')}`;
    expect({ field, got }).toEqual({ field, got: `INVALID_ARGUMENT ${field}` });
  }
  const blankTask = await rawCall(
    wire,
    'InjectTaskReminder',
    { taskId: '  ', reminder: base },
    ACTIVATED_HEADERS,
  );
  expect(blankTask.ok ? [] : fieldsOf(blankTask.error)).toEqual(['taskId']);
  const blankList = await rawCall(wire, 'ListTaskReminders', { taskId: '  ' }, ACTIVATED_HEADERS);
  expect(blankList.ok ? [] : fieldsOf(blankList.error)).toEqual(['taskId']);
  const noReminderId = await reminderError(
    wire.client.cancelTaskReminder({ taskId, reminderId: '' }),
    'INVALID_ARGUMENT',
  );
  expect(fieldsOf(noReminderId)).toEqual(['reminderId']);
  // Nothing was clamped or truncated into acceptance.
  expect((await wire.client.listTaskReminders({ taskId })).reminders).toEqual([]);

  // The edges are accepted, with the effective ttlTurns recorded.
  const edge = await wire.client.injectTaskReminder({
    taskId,
    reminder: {
      id: `A-z0.9_:${long(120)}`,
      body: `line\nwith\ttab ${long(4000)}`,
      dedupeKey: long(256),
      ttlTurns: 20,
      roleHint: long(32),
      source: long(256),
      metadata: { blob: long(16 * 1024 - 20) },
    },
  });
  expect(edge.record?.reminder?.ttlTurns).toBe(20);
  const defaulted = await wire.client.injectTaskReminder({
    taskId,
    reminder: { id: 'd', body: 'x' },
  });
  expect(defaulted.record?.reminder?.ttlTurns).toBe(1);
  const listed = await wire.client.listTaskReminders({ taskId });
  expect(listed.reminders.map((r) => r.reminder?.ttlTurns)).toEqual([20, 1]);
});

verifies(
  'R9-field-rules',
  async ({ wire }) => {
    const taskId = await wire.tasks.create();
    const card = await wire.sdk.getAgentCard();
    expect(card.capabilities?.extensions.at(-1)?.params).toMatchObject({
      maxBodyChars: 10,
      maxTtlTurns: 3,
      maxMetadataBytes: 64,
    });
    const cases: Array<[string, object]> = [
      ['reminder.body', { body: long(11) }],
      ['reminder.ttlTurns', { ttlTurns: 4 }],
      ['reminder.metadata', { metadata: { k: long(64) } }],
    ];
    for (const [field, change] of cases) {
      const error = await reminderError(
        wire.client.injectTaskReminder({ taskId, reminder: { id: 'r', body: 'ok', ...change } }),
        'INVALID_ARGUMENT',
      );
      expect(fieldsOf(error)).toEqual([field]);
    }
    const edge = await wire.client.injectTaskReminder({
      taskId,
      reminder: { id: 'r', body: long(10), ttlTurns: 3 },
    });
    expect(edge.record?.reminder?.ttlTurns).toBe(3);
  },
  {
    variant: 'limits are service options',
    stack: { limits: { maxBodyChars: 10, maxTtlTurns: 3, maxMetadataBytes: 64 } },
  },
);
