import type { TaskReminderEvent } from '@a2a-reminders/proto';
import {
  ReminderForwardSchema,
  ReminderState,
  TaskReminderEventBatchSchema,
  TaskReminderEventSchema,
} from '@a2a-reminders/proto';
import { create, toJson } from '@bufbuild/protobuf';
import type { Timestamp } from '@bufbuild/protobuf/wkt';
import { TimestampSchema, timestampFromMs } from '@bufbuild/protobuf/wkt';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { batchJson } from './batch-json.js';
import { REMINDER_EVENT_KINDS } from './events.js';

// The writer must give exactly what protobuf-es `toJson` gives (as JSON text,
// so key order counts), deferring to it for anything unusual.

const text = fc.oneof(fc.constant(''), fc.string(), fc.string({ unit: 'binary' }));
const int32 = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });

function timestamps(usual: boolean): fc.Arbitrary<Timestamp> {
  const inRange = fc
    .integer({ min: -62_135_596_800_000, max: 253_402_300_799_999 })
    .map((ms) => timestampFromMs(ms));
  if (usual) return inRange;
  return fc.oneof(
    inRange,
    fc
      .record({
        seconds: fc.constantFrom(-62_135_596_801n, 253_402_300_800n, 0n),
        nanos: fc.integer({ min: -2, max: 1_000_000_001 }),
      })
      .map((t) => create(TimestampSchema, t)),
  );
}

function events(usual: boolean): fc.Arbitrary<TaskReminderEvent> {
  const timestamp = timestamps(usual);
  const state = usual
    ? fc.constantFrom(...Object.values(ReminderState).filter((v) => typeof v === 'number'))
    : fc.integer({ min: -1, max: 9 });
  const body = fc.oneof(
    fc.record({ turn: int32, turnsRemaining: int32 }).map((value) => ({
      case: 'emitted' as const,
      value,
    })),
    fc.record({ displacedBy: text }).map((value) => ({ case: 'displaced' as const, value })),
    fc
      .record({ lastTurn: int32, turnsSurfaced: int32, taskEnded: fc.boolean() })
      .map((value) => ({ case: 'expired' as const, value })),
    fc.record({ turnsSurfaced: int32 }).map((value) => ({ case: 'cancelled' as const, value })),
    fc.record({ taskState: text }).map((value) => ({ case: 'dropped' as const, value })),
    fc
      .record(
        {
          taskId: text,
          reminderId: text,
          state,
          refusal: text,
          updateTime: timestamp,
        },
        { requiredKeys: ['taskId', 'reminderId', 'state', 'refusal'] },
      )
      .map((f) => ({ case: 'forward' as const, value: create(ReminderForwardSchema, f) })),
    fc.constant({ case: undefined }),
  );
  return fc
    .record(
      { reminderId: text, dedupeKey: text, eventTime: timestamp, event: body },
      { requiredKeys: ['reminderId', 'dedupeKey', 'event'] },
    )
    .map((e) => create(TaskReminderEventSchema, e as never));
}

const batches = (usual: boolean) =>
  fc
    .record({ taskId: text, events: fc.array(events(usual), { maxLength: 4 }) })
    .map((b) => create(TaskReminderEventBatchSchema, b));

/** JSON text of `toJson`, or 'throws'. */
function reference(batch: ReturnType<typeof create<typeof TaskReminderEventBatchSchema>>): string {
  try {
    return JSON.stringify(toJson(TaskReminderEventBatchSchema, batch));
  } catch {
    return 'throws';
  }
}

function written(batch: ReturnType<typeof create<typeof TaskReminderEventBatchSchema>>): string {
  try {
    return JSON.stringify(batchJson(batch));
  } catch {
    return 'throws';
  }
}

describe('batchJson', () => {
  it('R30: writes every event kind the service emits under its own key', () => {
    const kinds = new Set<string>();
    fc.assert(
      fc.property(events(true), (e) => {
        const json = batchJson(create(TaskReminderEventBatchSchema, { taskId: 't', events: [e] }));
        const [written] = (json as { events: Record<string, unknown>[] }).events;
        if (e.event.case === undefined) {
          for (const kind of REMINDER_EVENT_KINDS) expect(written).not.toHaveProperty(kind);
          return;
        }
        expect(written).toHaveProperty(e.event.case);
        kinds.add(e.event.case);
      }),
      { numRuns: 200 },
    );
    expect([...kinds].sort()).toEqual([...REMINDER_EVENT_KINDS].sort());
  });

  it('R30: writes any batch exactly as toJson, refusals and deferrals included', () => {
    fc.assert(
      fc.property(batches(true), batches(false), (usual, any) => {
        expect(written(usual)).toBe(reference(usual));
        expect(written(any)).toBe(reference(any));
      }),
      { numRuns: 400 },
    );
  });
});
