import type { ReminderForward, TaskReminder, TaskReminderRecord } from '@a2a-reminders/proto';
import {
  ReminderForwardSchema,
  ReminderState,
  TaskReminderRecordSchema,
  TaskReminderSchema,
} from '@a2a-reminders/proto';
import { equals } from '@bufbuild/protobuf';
import { DEFAULT_TTL_TURNS } from './limits.js';
import { reminderOf } from './reminder-content.js';
import type { ReminderWrite, StoredForward, StoredReminder, StoredReminderState } from './store.js';
import { isLiveState } from './store.js';
import { timestampOfMs } from './timestamp.js';

const protoState: Record<StoredReminderState, ReminderState> = {
  PENDING: ReminderState.PENDING,
  ACTIVE: ReminderState.ACTIVE,
  EXPIRED: ReminderState.EXPIRED,
  DISPLACED: ReminderState.DISPLACED,
  CANCELLED: ReminderState.CANCELLED,
  DROPPED: ReminderState.DROPPED,
};

/** Turns still to come: ttl minus turns surfaced while live, 0 once final (R34). */
export function turnsRemainingOf(stored: ReminderWrite): number {
  return isLiveState(stored.state) ? stored.ttlTurns - stored.turnsSurfaced : 0;
}

/** The wire record of a stored reminder (R34). */
export function recordOf(taskId: string, stored: ReminderWrite): TaskReminderRecord {
  return record(taskId, stored, false);
}

/** R13: the record as it was at acceptance: PENDING, never surfaced, nothing ended. */
export function acceptedRecordOf(taskId: string, stored: ReminderWrite): TaskReminderRecord {
  return record(taskId, stored, true);
}

function record(taskId: string, stored: ReminderWrite, asAccepted: boolean): TaskReminderRecord {
  const ended = !asAccepted && stored.endTimeMs !== undefined;
  // Every field of the schema, in one literal: what `create` builds, without
  // its reflection on the path of every inject and List.
  return {
    $typeName: TaskReminderRecordSchema.typeName,
    taskId,
    reminder: reminderOf(stored),
    state: asAccepted ? ReminderState.PENDING : protoState[stored.state],
    createTime: timestampOfMs(stored.createTimeMs),
    endTime: ended ? timestampOfMs(stored.endTimeMs ?? 0) : undefined,
    firstTurn: asAccepted ? undefined : stored.firstTurn,
    turnsRemaining: asAccepted ? stored.ttlTurns : turnsRemainingOf(stored),
    displacedBy: asAccepted ? '' : (stored.displacedBy ?? ''),
    forwards: asAccepted || stored.forwards === undefined ? [] : stored.forwards.map(forwardOf),
  };
}

/** R63: the wire form of one forwarded copy. */
export function forwardOf(forward: StoredForward): ReminderForward {
  return {
    $typeName: ReminderForwardSchema.typeName,
    taskId: forward.taskId,
    reminderId: forward.reminderId,
    state: forward.state === undefined ? ReminderState.UNSPECIFIED : protoState[forward.state],
    refusal: forward.refusal ?? '',
    updateTime: timestampOfMs(forward.updateTimeMs),
  };
}

/**
 * Same content for idempotency (R13): every field, ttlTurns compared by its
 * effective value, metadata deep-equal regardless of key order.
 */
export function sameContent(stored: StoredReminder, incoming: TaskReminder): boolean {
  const effective = { ...incoming, ttlTurns: incoming.ttlTurns ?? DEFAULT_TTL_TURNS };
  return equals(TaskReminderSchema, reminderOf(stored), effective);
}
