// What the wire should show for a state of the reference model: records,
// inject answers and events as ProtoJSON, built from the model's own values
// with the protobuf runtime only (no service code), so that the model-based
// test compares two independent computations.

import {
  InjectTaskReminderResponseSchema,
  ReminderState,
  TaskReminderEventSchema,
  TaskReminderRecordSchema,
} from '@a2a-reminders/proto';
import type { JsonObject, JsonValue } from '@bufbuild/protobuf';
import { create, toJson } from '@bufbuild/protobuf';
import { timestampFromMs } from '@bufbuild/protobuf/wkt';
import type { ModelEvent, ModelRecord, ModelState } from './reminder-model.js';
import { isLive } from './reminder-model.js';

const STATE: Record<ModelState, ReminderState> = {
  PENDING: ReminderState.PENDING,
  ACTIVE: ReminderState.ACTIVE,
  EXPIRED: ReminderState.EXPIRED,
  DISPLACED: ReminderState.DISPLACED,
  CANCELLED: ReminderState.CANCELLED,
  DROPPED: ReminderState.DROPPED,
};

function reminderInit(r: ModelRecord) {
  return {
    id: r.content.id,
    body: r.content.body,
    dedupeKey: r.content.dedupeKey,
    ttlTurns: r.ttl,
    ...(r.content.metadata === undefined ? {} : { metadata: r.content.metadata }),
  };
}

/** R34: the listed record of a model record, as ProtoJSON. */
export function expectedRecord(taskId: string, r: ModelRecord): JsonValue {
  return toJson(
    TaskReminderRecordSchema,
    create(TaskReminderRecordSchema, {
      taskId,
      reminder: reminderInit(r),
      state: STATE[r.state],
      createTime: timestampFromMs(r.createTimeMs),
      ...(r.endTimeMs === undefined ? {} : { endTime: timestampFromMs(r.endTimeMs) }),
      ...(r.firstTurn === undefined ? {} : { firstTurn: r.firstTurn }),
      turnsRemaining: isLive(r.state) ? r.ttl - r.turnsSurfaced : 0,
      displacedBy: r.displacedBy ?? '',
    }),
  );
}

/** R13, R16: the answer of the inject that accepted `r` (a replay repeats it). */
export function expectedInjectResponse(taskId: string, r: ModelRecord, taskState: string) {
  const record = create(TaskReminderRecordSchema, {
    taskId,
    reminder: reminderInit(r),
    state: ReminderState.PENDING,
    createTime: timestampFromMs(r.createTimeMs),
    turnsRemaining: r.ttl,
  });
  return toJson(
    InjectTaskReminderResponseSchema,
    create(InjectTaskReminderResponseSchema, {
      record,
      displacedReminderIds: [...r.displacedAtAcceptance],
      taskState,
    }),
  ) as JsonObject;
}

/** R16, R21–R23, R27: one event as ProtoJSON. */
export function expectedEvent(e: ModelEvent, nowMs: number): JsonValue {
  const base = {
    reminderId: e.r.content.id,
    dedupeKey: e.r.content.dedupeKey,
    eventTime: timestampFromMs(nowMs),
  };
  const body = (() => {
    switch (e.kind) {
      case 'emitted':
        return {
          case: 'emitted' as const,
          value: { turn: e.turn, turnsRemaining: e.turnsRemaining },
        };
      case 'displaced':
        return { case: 'displaced' as const, value: { displacedBy: e.displacedBy } };
      case 'expired':
        return {
          case: 'expired' as const,
          value: { lastTurn: e.lastTurn, turnsSurfaced: e.turnsSurfaced, taskEnded: e.taskEnded },
        };
      case 'cancelled':
        return { case: 'cancelled' as const, value: { turnsSurfaced: e.turnsSurfaced } };
      case 'dropped':
        return { case: 'dropped' as const, value: { taskState: e.taskState } };
    }
  })();
  return toJson(TaskReminderEventSchema, create(TaskReminderEventSchema, { ...base, event: body }));
}
