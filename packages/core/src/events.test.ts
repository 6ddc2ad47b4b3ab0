import { TaskReminderEventBatchSchema, TaskReminderEventSchema } from '@a2a-reminders/proto';
import type { DescMessage, Message } from '@bufbuild/protobuf';
import { create, equals } from '@bufbuild/protobuf';
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

/** The literal is what create() makes of it: every field of the schema, no other, equal values. */
function expectSchemaShape(schema: DescMessage, literal: Message): void {
  const fields = schema.fields.filter((f) => f.oneof === undefined).map((f) => f.localName);
  const oneofs = schema.oneofs.map((o) => o.localName);
  expect(Object.keys(literal).sort()).toEqual(['$typeName', ...fields, ...oneofs].sort());
  expect(equals(schema, literal as never, create(schema, literal as never))).toBe(true);
}

describe('reminder events', () => {
  it('R18: builds each kind as a TaskReminderEvent literal of the schema, batches too', () => {
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
