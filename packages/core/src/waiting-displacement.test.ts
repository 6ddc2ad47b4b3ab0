import type { TaskReminderEvent } from '@a2a-reminders/proto';
import { ReminderDisplacedSchema, TaskReminderEventSchema } from '@a2a-reminders/proto';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { TimestampSchema } from '@bufbuild/protobuf/wkt';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { displacedEvent, emittedEvent } from './events.js';
import type { StoredReminder } from './store.js';
import { reminderWrite } from './testing/reminder-write.js';
import { eventOfWaiting, waitingEvent } from './waiting-displacement.js';

const text = fc.oneof(fc.constant(''), fc.string(), fc.string({ unit: 'binary' }));

function displacement(
  reminderId: string,
  dedupeKey: string,
  seconds: bigint,
  nanos: number,
  displacedBy: string,
): TaskReminderEvent {
  return create(TaskReminderEventSchema, {
    reminderId,
    dedupeKey,
    eventTime: create(TimestampSchema, { seconds, nanos }),
    event: { case: 'displaced', value: create(ReminderDisplacedSchema, { displacedBy }) },
  });
}

describe('waitingEvent / eventOfWaiting (R57)', () => {
  it('carries every field of the schemas it compacts (a new field fails here first)', () => {
    const names = (fields: readonly { localName: string }[]) => fields.map((f) => f.localName);
    expect(names(TaskReminderEventSchema.fields).filter((n) => n !== 'displaced')).toEqual([
      'reminderId',
      'dedupeKey',
      'eventTime',
      'emitted',
      'expired',
      'cancelled',
      'dropped',
      'forward',
    ]);
    expect(TaskReminderEventSchema.oneofs.map((o) => o.localName)).toEqual(['event']);
    expect(names(ReminderDisplacedSchema.fields)).toEqual(['displacedBy']);
    expect(names(TimestampSchema.fields)).toEqual(['seconds', 'nanos']);
  });

  it('compacts a displacement event and rebuilds it field for field', () => {
    fc.assert(
      fc.property(
        text,
        text,
        fc.bigInt({ min: -(2n ** 53n) + 1n, max: 2n ** 53n - 1n }),
        fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
        text,
        (id, key, seconds, nanos, by) => {
          const event = displacement(id, key, seconds, nanos, by);
          const waiting = waitingEvent(event);
          expect('$typeName' in waiting).toBe(false);
          const rebuilt = eventOfWaiting(waiting);
          expect(rebuilt).toStrictEqual(event);
          expect(toBinary(TaskReminderEventSchema, rebuilt)).toEqual(
            toBinary(TaskReminderEventSchema, event),
          );
        },
      ),
      { numRuns: 200 },
    );
  });

  it('compacts the events the service builds for a displacement', () => {
    const r: StoredReminder = { ...reminderWrite('a', { dedupeKey: 'k' }), seq: 1 };
    const event = displacedEvent(r, 1_767_225_600_123, 'b');
    expect(eventOfWaiting(waitingEvent(event))).toStrictEqual(event);
  });

  it('keeps any other event as it is: other kinds, unknown fields, seconds past a number', () => {
    const r: StoredReminder = { ...reminderWrite('a', { state: 'ACTIVE' }), seq: 1 };
    const emitted = emittedEvent(r, 1000, 1, 0);
    const tooLate = displacement('a', 'k', 2n ** 60n, 0, 'b');
    const withUnknown = fromBinary(
      TaskReminderEventSchema,
      new Uint8Array([
        ...toBinary(TaskReminderEventSchema, displacement('a', 'k', 1n, 0, 'b')),
        // field 99, varint 1: unknown to the schema
        0x98,
        0x06,
        0x01,
      ]),
    );
    expect('$unknown' in withUnknown).toBe(true);
    for (const event of [emitted, tooLate, withUnknown]) {
      expect(waitingEvent(event)).toBe(event);
      expect(eventOfWaiting(waitingEvent(event))).toBe(event);
    }
  });
});
