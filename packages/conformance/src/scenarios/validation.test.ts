import type { JsonObject } from '@bufbuild/protobuf';
import { expect } from 'vitest';
import { advertisedLimit } from '../harness/advertised-limits.js';
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
  // The agent's own limits (R2): the defaults in process, whatever the agent under test advertises.
  const maxBody = advertisedLimit(wire.card, 'maxBodyChars');
  const maxTtl = advertisedLimit(wire.card, 'maxTtlTurns');
  const maxMetadata = advertisedLimit(wire.card, 'maxMetadataBytes');
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
    ['reminder.body', { reminder: { ...base, body: long(maxBody + 1) } }],
    ['reminder.body', { reminder: { ...base, body: 'bell\u0007' } }],
    ['reminder.body', { reminder: { ...base, body: 'esc\u001b[0m' } }],
    ['reminder.dedupeKey', { reminder: { ...base, dedupeKey: long(257) } }],
    ['reminder.ttlTurns', { reminder: { ...base, ttlTurns: 0 } }],
    ['reminder.ttlTurns', { reminder: { ...base, ttlTurns: maxTtl + 1 } }],
    ['reminder.ttlTurns', { reminder: { ...base, ttlTurns: -1 } }],
    ['reminder.roleHint', { reminder: { ...base, roleHint: long(33) } }],
    ['reminder.source', { reminder: { ...base, source: long(257) } }],
    ['reminder.metadata', { reminder: { ...base, metadata: { blob: long(maxMetadata) } } }],
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
      body: `line\nwith\ttab ${long(maxBody - 14)}`,
      dedupeKey: long(256),
      ttlTurns: maxTtl,
      roleHint: long(32),
      source: long(256),
      metadata: { blob: long(maxMetadata - 20) },
    },
  });
  expect(edge.record?.reminder?.ttlTurns).toBe(maxTtl);
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

verifies('R46-text-fields', async ({ wire }) => {
  const taskId = await wire.tasks.create();
  const base = { id: 'r', body: 'fine' };
  const call = (
    rpc: 'InjectTaskReminder' | 'ListTaskReminders' | 'CancelTaskReminder',
    request: JsonObject,
  ) => rawCall(wire, rpc, request, ACTIVATED_HEADERS);
  const refused: Array<[string, string[], Promise<Awaited<ReturnType<typeof call>>>]> = [];
  const inject = (name: string, fields: string[], request: JsonObject) =>
    refused.push([name, fields, call('InjectTaskReminder', { taskId, ...request })]);
  inject('ESC in source', ['reminder.source'], {
    reminder: { ...base, source: 'esc\u001b[31mRED' },
  });
  inject('newline in dedupeKey', ['reminder.dedupeKey'], {
    reminder: { ...base, dedupeKey: 'k\nforged' },
  });
  inject('tab in roleHint', ['reminder.roleHint'], { reminder: { ...base, roleHint: 'system\t' } });
  inject('C1 control in source', ['reminder.source'], {
    reminder: { ...base, source: 'a\u009bb' },
  });
  inject('zero-width space in source', ['reminder.source'], {
    reminder: { ...base, source: 'ci\u200bbot' },
  });
  inject('soft hyphen in dedupeKey', ['reminder.dedupeKey'], {
    reminder: { ...base, dedupeKey: 'k\u00ad' },
  });
  inject('bidi override in roleHint', ['reminder.roleHint'], {
    reminder: { ...base, roleHint: 'sys\u202etem' },
  });
  inject('BOM in source', ['reminder.source'], { reminder: { ...base, source: 'a\ufeff' } });
  inject('line separator in dedupeKey', ['reminder.dedupeKey'], {
    reminder: { ...base, dedupeKey: 'a\u2028b' },
  });
  inject('bidi override in body', ['reminder.body'], {
    reminder: { ...base, body: 'safe \u202egnp.exe' },
  });
  inject('bidi isolate in body', ['reminder.body'], {
    reminder: { ...base, body: 'x \u2067y\u2069' },
  });
  inject('tag characters in body', ['reminder.body'], {
    reminder: { ...base, body: 'hi\u{e0049}\u{e0047}\u{e004e}' },
  });
  inject(
    'every field at once',
    ['reminder.body', 'reminder.dedupeKey', 'reminder.roleHint', 'reminder.source'],
    {
      reminder: {
        id: 'r',
        body: 'b\u2066',
        source: 's\u0007',
        dedupeKey: 'd\u200d',
        roleHint: 'r\u0085',
      },
    },
  );
  inject('ESC in taskId', ['taskId'], { taskId: 't\u001b[2J', reminder: base });
  inject('bidi override in tenant', ['tenant'], { tenant: 'acme\u202e', reminder: base });
  refused.push([
    'ESC in taskId (list)',
    ['taskId'],
    call('ListTaskReminders', { taskId: 't\u001b[2J' }),
  ]);
  refused.push([
    'bell in reminderId',
    ['reminderId'],
    call('CancelTaskReminder', { taskId, reminderId: 'r\u0007' }),
  ]);
  for (const [name, fields, pending] of refused) {
    const outcome = await pending;
    const got = outcome.ok
      ? 'accepted'
      : `${outcome.error.code} ${fieldsOf(outcome.error).join(',')}`;
    expect({ name, got }).toEqual({ name, got: `INVALID_ARGUMENT ${fields.join(',')}` });
    // The description names the code point; the character itself never comes back.
    if (!outcome.ok) {
      for (const v of outcome.error.fieldViolations)
        expect(v.description).toMatch(/^[\x20-\x7e]+ \(U\+[0-9A-F]{4,6} at offset \d+\)$/);
    }
  }
  expect((await wire.client.listTaskReminders({ taskId })).reminders).toEqual([]);

  // What text needs stays: newline and tab, ZWJ emoji, ZWNJ, variation selectors, soft hyphens in
  // a body; visible non-ASCII in the short fields. Every binding lists the same characters back.
  const kept = {
    id: 'kept',
    body: 'line\nwith\ttab 👩\u200d💻 ❤\ufe0f می\u200cخواهم hy\u00adphen',
    source: 'ci-bot 🤖 Zürich',
    dedupeKey: 'κλειδί:1',
    roleHint: 'développeur',
  };
  await wire.client.injectTaskReminder({ taskId, reminder: kept });
  const listed = (await wire.client.listTaskReminders({ taskId })).reminders[0]?.reminder;
  expect(listed).toMatchObject(kept);
});
