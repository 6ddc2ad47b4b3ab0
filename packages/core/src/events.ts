import type { TaskReminderEvent, TaskReminderEventBatch } from '@a2a-reminders/proto';
import { TaskReminderEventBatchSchema, TaskReminderEventSchema } from '@a2a-reminders/proto';
import type { JsonObject } from '@bufbuild/protobuf';
import type { Timestamp } from '@bufbuild/protobuf/wkt';
import { batchJson } from './batch-json.js';
import { TASK_REMINDERS_EXTENSION_URI } from './extension-uri.js';
import { forwardOf } from './records.js';
import type { StoredForward, StoredReminder } from './store.js';
import { timestampOfMs } from './timestamp.js';

/** The lifecycle events the service emits (R18, advertised on the card per R2). */
export const REMINDER_EVENT_KINDS = [
  'emitted',
  'displaced',
  'expired',
  'cancelled',
  'dropped',
  'forward',
] as const;

type EventBody = TaskReminderEvent['event'];

/** A literal naming every field, not `create()`'s reflection; `events.test.ts` holds it to the schema. */
function event(reminder: StoredReminder, nowMs: number, body: EventBody): TaskReminderEvent {
  return eventAt(reminder.id, reminder.dedupeKey, timestampOfMs(nowMs), body);
}

function eventAt(
  reminderId: string,
  dedupeKey: string,
  eventTime: Timestamp,
  body: EventBody,
): TaskReminderEvent {
  return {
    $typeName: TaskReminderEventSchema.typeName,
    reminderId,
    dedupeKey,
    eventTime,
    event: body,
  };
}

/** R21: first surfacing. */
export function emittedEvent(
  r: StoredReminder,
  nowMs: number,
  turn: number,
  turnsRemaining: number,
) {
  return event(r, nowMs, {
    case: 'emitted',
    value: { $typeName: 'a2a.reminders.v1.ReminderEmitted', turn, turnsRemaining },
  });
}

/** R16: displaced by a newer reminder with the same dedupe key. */
export function displacedEvent(r: StoredReminder, nowMs: number, displacedBy: string) {
  return displacedEventAt(r.id, r.dedupeKey, timestampOfMs(nowMs), displacedBy);
}

/** {@link displacedEvent} by its fields, for an event rebuilt after waiting (R57, waiting-displacement.ts). */
export function displacedEventAt(
  reminderId: string,
  dedupeKey: string,
  eventTime: Timestamp,
  displacedBy: string,
): TaskReminderEvent {
  return eventAt(reminderId, dedupeKey, eventTime, {
    case: 'displaced',
    value: { $typeName: 'a2a.reminders.v1.ReminderDisplaced', displacedBy },
  });
}

/** R22, R27: stopped being surfaced after reaching at least one turn. */
export function expiredEvent(r: StoredReminder, nowMs: number, taskEnded: boolean) {
  const lastTurn = (r.firstTurn ?? 0) + r.turnsSurfaced - 1;
  return event(r, nowMs, {
    case: 'expired',
    value: {
      $typeName: 'a2a.reminders.v1.ReminderExpired',
      lastTurn,
      turnsSurfaced: r.turnsSurfaced,
      taskEnded,
    },
  });
}

/** R23: retracted by CancelTaskReminder. */
export function cancelledEvent(r: StoredReminder, nowMs: number) {
  return event(r, nowMs, {
    case: 'cancelled',
    value: { $typeName: 'a2a.reminders.v1.ReminderCancelled', turnsSurfaced: r.turnsSurfaced },
  });
}

/** R27: the task ended before the reminder reached any turn. */
export function droppedEvent(r: StoredReminder, nowMs: number, taskState: string) {
  return event(r, nowMs, {
    case: 'dropped',
    value: { $typeName: 'a2a.reminders.v1.ReminderDropped', taskState },
  });
}

/** R63: a forwarded copy of the reminder was accepted, refused, or changed state in its sub-task. */
export function forwardEvent(r: StoredReminder, nowMs: number, forward: StoredForward) {
  return event(r, nowMs, { case: 'forward', value: forwardOf(forward) });
}

export function eventBatch(taskId: string, events: TaskReminderEvent[]): TaskReminderEventBatch {
  return { $typeName: TaskReminderEventBatchSchema.typeName, taskId, events };
}

/** R30: the status-update metadata carrying one batch, keyed by the extension URI. */
export function batchMetadata(batch: TaskReminderEventBatch): JsonObject {
  return { [TASK_REMINDERS_EXTENSION_URI]: batchJson(batch) };
}
