import { TaskState } from '@a2a-js/sdk';
import { AgentEvent } from '@a2a-js/sdk/server';
import { TaskReminderEventBatchSchema } from '@a2a-reminders/proto';
import { create, toJson } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { batchMetadata, emittedEvent, eventBatch } from './events.js';
import { TASK_REMINDERS_EXTENSION_URI } from './extension-uri.js';
import type { StoredReminder } from './store.js';
import { reminderEventsOf } from './stream-events.js';

const stored: StoredReminder = {
  id: 'r1',
  seq: 1,
  body: 'b',
  dedupeKey: 'k',
  ttlTurns: 2,
  roleHint: '',
  source: '',
  state: 'ACTIVE',
  createTimeMs: 0,
  turnsSurfaced: 1,
  acceptance: { displacedReminderIds: [], taskState: 'TASK_STATE_WORKING' },
};

const update = (metadata: Record<string, unknown> | undefined) => ({
  taskId: 't',
  contextId: 'c',
  status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: undefined },
  metadata,
});

describe('reminderEventsOf', () => {
  const metadata = batchMetadata(eventBatch('t', [emittedEvent(stored, 0, 1, 1)]));

  it('R30: reads the batch from a client StreamResponse, an executor event or a bare update', () => {
    for (const item of [
      { payload: { $case: 'statusUpdate', value: update(metadata) } },
      AgentEvent.statusUpdate(update(metadata)),
      update(metadata),
      { statusUpdate: update(metadata) },
    ]) {
      const events = reminderEventsOf(item);
      expect(events.map((e) => [e.reminderId, e.event.case])).toEqual([['r1', 'emitted']]);
    }
  });

  it('R30: ignores items without reminder events', () => {
    expect(reminderEventsOf({ payload: { $case: 'task', value: {} } })).toEqual([]);
    expect(reminderEventsOf(update(undefined))).toEqual([]);
    expect(reminderEventsOf(update({ other: 1 }))).toEqual([]);
    expect(reminderEventsOf(undefined)).toEqual([]);
    expect(reminderEventsOf(update({ [TASK_REMINDERS_EXTENSION_URI]: 'garbage' }))).toEqual([]);
  });

  it('R33: unknown event kinds and unknown fields are ignored', () => {
    const json = toJson(
      TaskReminderEventBatchSchema,
      create(TaskReminderEventBatchSchema, { taskId: 't' }),
    );
    const raw = {
      ...(json as object),
      futureField: 1,
      events: [
        { reminderId: 'x', snoozed: { until: 3 } },
        { reminderId: 'y', cancelled: { turnsSurfaced: 0 }, extra: true },
      ],
    };
    const events = reminderEventsOf(update({ [TASK_REMINDERS_EXTENSION_URI]: raw }));
    expect(events.map((e) => [e.reminderId, e.event.case])).toEqual([['y', 'cancelled']]);
  });
});
