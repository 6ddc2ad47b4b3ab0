import { ReminderState, TaskReminderRecordSchema, TaskReminderSchema } from '@a2a-reminders/proto';
import { create, equals } from '@bufbuild/protobuf';
import { timestampFromMs } from '@bufbuild/protobuf/wkt';
import { describe, expect, it } from 'vitest';
import { acceptedRecordOf, recordOf } from './records.js';
import { pendingRecord, reminderOf } from './reminder-content.js';
import type { StoredReminder } from './store.js';

const stored: StoredReminder = {
  ...pendingRecord(
    create(TaskReminderSchema, { id: 'r1', body: 'b', dedupeKey: 'k', metadata: { a: 1 } }),
    1_000,
    { displacedReminderIds: [], taskState: 'TASK_STATE_WORKING' },
  ),
  seq: 1,
  state: 'DISPLACED',
  endTimeMs: 2_500,
  firstTurn: 2,
  turnsSurfaced: 1,
  displacedBy: 'r2',
};

// recordOf and reminderOf build messages as literals (no `create` on the
// inject path); these hold them to what `create` builds from the schema.
describe('records built without create', () => {
  it('a record has exactly the schema fields, equal to what create builds', () => {
    const record = recordOf('t1', stored);
    expect(Object.keys(record)).toEqual([
      '$typeName',
      ...TaskReminderRecordSchema.fields.map((f) => f.localName),
    ]);
    const built = create(TaskReminderRecordSchema, {
      taskId: 't1',
      reminder: create(TaskReminderSchema, {
        id: 'r1',
        body: 'b',
        dedupeKey: 'k',
        ttlTurns: 1,
        metadata: { a: 1 },
      }),
      state: ReminderState.DISPLACED,
      createTime: timestampFromMs(1_000),
      endTime: timestampFromMs(2_500),
      firstTurn: 2,
      turnsRemaining: 0,
      displacedBy: 'r2',
    });
    expect(equals(TaskReminderRecordSchema, record, built)).toBe(true);
  });

  it('a reminder has exactly the schema fields, defaults for what the content lacks', () => {
    const partial = { id: 'r1', body: 'b', ttlTurns: 2 } as Parameters<typeof reminderOf>[0];
    const reminder = reminderOf(partial);
    expect(Object.keys(reminder)).toEqual([
      '$typeName',
      ...TaskReminderSchema.fields.map((f) => f.localName),
    ]);
    expect(reminder).toEqual(create(TaskReminderSchema, { id: 'r1', body: 'b', ttlTurns: 2 }));
  });

  it('R13: the record at acceptance is the stored one as it was then', () => {
    const { endTimeMs: _e, firstTurn: _f, displacedBy: _d, ...rest } = stored;
    const then = recordOf('t1', { ...rest, state: 'PENDING', turnsSurfaced: 0 });
    expect(equals(TaskReminderRecordSchema, acceptedRecordOf('t1', stored), then)).toBe(true);
    expect(acceptedRecordOf('t1', stored).state).toBe(ReminderState.PENDING);
  });
});
