import { TaskReminderEventBatchSchema, TaskReminderEventSchema } from '@a2a-reminders/proto';
import type { DescMessage, Message } from '@bufbuild/protobuf';
import { equals, fromBinary, toBinary } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import {
  cancelledEvent,
  displacedEvent,
  droppedEvent,
  emittedEvent,
  eventBatch,
  expiredEvent,
  forwardEvent,
  REMINDER_EVENT_KINDS,
} from './events.js';
import type { StoredReminder } from './store.js';
import { reminderWrite } from './testing/reminder-write.js';

const r: StoredReminder = {
  ...reminderWrite('a', { dedupeKey: 'k', state: 'ACTIVE', firstTurn: 1, turnsSurfaced: 2 }),
  seq: 1,
};

/**
 * Every field of the schema and no other, at every level a literal builds
 * (`create()` would hand a branded literal back unchecked), and values the
 * binary codec carries unchanged.
 */
function expectSchemaShape(schema: DescMessage, literal: Message): void {
  const fields = schema.fields.filter((f) => f.oneof === undefined).map((f) => f.localName);
  const oneofs = schema.oneofs.map((o) => o.localName);
  expect(Object.keys(literal).sort()).toEqual(['$typeName', ...fields, ...oneofs].sort());
  expect(literal.$typeName).toBe(schema.typeName);
  const values = literal as unknown as Record<string, unknown>;
  for (const oneof of schema.oneofs) {
    const selected = values[oneof.localName] as { case?: string; value?: unknown };
    const field = oneof.fields.find((f) => f.localName === selected.case);
    if (field?.fieldKind === 'message') expectSchemaShape(field.message, selected.value as Message);
  }
  const decoded = fromBinary(schema, toBinary(schema, literal as never));
  expect(equals(schema, literal as never, decoded)).toBe(true);
}

describe('reminder events', () => {
  it('R30: builds each kind of event, and their batch, as literals of the schema', () => {
    const built = [
      emittedEvent(r, 5, 3, 1),
      displacedEvent(r, 5, 'b'),
      expiredEvent(r, 5, true),
      cancelledEvent(r, 5),
      droppedEvent(r, 5, 'TASK_STATE_CANCELED'),
      forwardEvent(r, 5, { taskId: 'sub', reminderId: 'a-1', state: 'PENDING', updateTimeMs: 4 }),
    ];
    expect(built.map((e) => e.event.case)).toEqual([...REMINDER_EVENT_KINDS]);
    for (const e of built) expectSchemaShape(TaskReminderEventSchema, e);
    expectSchemaShape(TaskReminderEventBatchSchema, eventBatch('t', built));
  });
});
