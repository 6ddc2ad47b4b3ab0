import { TaskState } from '@a2a-js/sdk';
import type { TaskReminder } from '@a2a-reminders/proto';
import { ReminderProvenanceSchema, TaskReminderSchema } from '@a2a-reminders/proto';
import type { DescField } from '@bufbuild/protobuf';
import { create, equals, fromBinary, toBinary } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { ReminderError } from './errors.js';
import { pendingRecord } from './reminder-content.js';
import type { ReminderInit } from './testing/harness.js';
import { harness, rejection } from './testing/harness.js';

// The types and copies of a reminder's content derive from TaskReminder, so
// these tests walk the schema's field list rather than naming fields: a field
// added to the proto is covered without touching them, and a copy that
// restates fields by hand (and so misses the new one) fails here.

/** A reminder with every field set to a non-default value. */
const everyField: ReminderInit = {
  id: 'r1',
  body: 'the body',
  dedupeKey: 'k',
  ttlTurns: 2,
  roleHint: 'developer',
  source: 'monitor',
  metadata: { a: 1, nested: { b: [true, 'x'] } },
  provenance: { hops: [{ taskId: 'parent-task', reminderId: 'p1', source: 'coordinator' }] },
};

function fieldValue(message: TaskReminder, field: DescField): unknown {
  return (message as unknown as Record<string, unknown>)[field.localName];
}

/** The reminder with one field changed to another valid value. */
function withChanged(field: DescField): ReminderInit {
  const sent = create(TaskReminderSchema, everyField);
  const value = fieldValue(sent, field);
  let changed: unknown;
  if (typeof value === 'string') changed = `${value}-changed`;
  else if (typeof value === 'number') changed = value + 1;
  else if (
    field.fieldKind === 'message' &&
    field.message.typeName === ReminderProvenanceSchema.typeName
  ) {
    changed = { hops: [{ taskId: 'another-task', reminderId: 'p1' }] };
  } else changed = { other: 'metadata' };
  return { ...everyField, [field.localName]: changed };
}

async function workingTask() {
  const h = harness();
  const task = await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
  const sink = h.openBus('t1');
  return { h, turn: () => h.service.beginTurn(h.requestContext(task), sink.bus) };
}

describe('reminder content', () => {
  it('R34, R20: every TaskReminder field reaches the listed record and the surfaced reminder', async () => {
    const { h, turn } = await workingTask();
    await h.inject('t1', everyField);
    const sent = create(TaskReminderSchema, everyField);
    const listed = (await h.list('t1')).reminders[0]?.reminder;
    expect(listed !== undefined && equals(TaskReminderSchema, listed, sent)).toBe(true);
    const surfaced = (await turn()).reminders[0] as unknown as Record<string, unknown>;
    for (const field of TaskReminderSchema.fields) {
      // The surfaced reminder tells what is left of the ttl instead (R20).
      if (field.localName === 'ttlTurns') continue;
      expect(surfaced[field.localName], field.localName).toEqual(fieldValue(sent, field));
    }
    expect(surfaced).not.toHaveProperty('ttlTurns');
    expect(surfaced).toMatchObject({ turnsRemaining: 1, firstSurfacing: true });
  });

  it('R9: a reminder given only id and body is surfaced with every other string empty', async () => {
    const { h, turn } = await workingTask();
    await h.inject('t1', { id: 'r1', body: 'b' });
    const surfaced = (await turn()).reminders[0];
    expect(surfaced).toMatchObject({
      id: 'r1',
      body: 'b',
      dedupeKey: '',
      source: '',
      roleHint: '',
    });
    expect(surfaced?.metadata).toBeUndefined();
  });

  it('R13, R14: an idempotent re-send matches on every field, and a change to any field conflicts', async () => {
    const { h } = await workingTask();
    const first = await h.inject('t1', everyField);
    expect(await h.inject('t1', everyField)).toEqual(first);
    for (const field of TaskReminderSchema.fields) {
      if (field.localName === 'id') continue;
      const err = await rejection(h.inject('t1', withChanged(field)));
      expect(err instanceof ReminderError && err.code, field.localName).toBe(
        'REMINDER_ID_CONFLICT',
      );
    }
  });

  it('R9: the accepted record has the effective ttl and keeps neither the message brand nor unknown fields', () => {
    // Field 99 is not in TaskReminder: a newer client's field this server does not know.
    const unknownField = new Uint8Array([0x98, 0x06, 0x01]);
    const bytes = toBinary(TaskReminderSchema, create(TaskReminderSchema, { id: 'a', body: 'b' }));
    const reminder = fromBinary(TaskReminderSchema, new Uint8Array([...bytes, ...unknownField]));
    expect(reminder.$unknown).toHaveLength(1);
    const content = pendingRecord(reminder, 0, {
      displacedReminderIds: [],
      taskState: 'TASK_STATE_WORKING',
    }) as unknown as Record<string, unknown>;
    expect(content).not.toHaveProperty('$typeName');
    expect(content).not.toHaveProperty('$unknown');
    expect(content.ttlTurns).toBe(1);
    for (const field of TaskReminderSchema.fields) {
      if (field.localName === 'ttlTurns') continue;
      expect(content[field.localName], field.localName).toEqual(fieldValue(reminder, field));
    }
  });
});
