import type { TaskReminderEvent, TaskReminderEventBatch } from '@a2a-reminders/proto';
import { TaskReminderEventBatchSchema } from '@a2a-reminders/proto';
import type { JsonObject, JsonValue } from '@bufbuild/protobuf';
import { toJson } from '@bufbuild/protobuf';
import { forwardJson, timestampJson, write } from './response-json.js';

/**
 * R30: the ProtoJSON of an event batch, written field by field as the rpcs'
 * answers are (`response-json.ts`): what `toJson` gives, without its
 * reflection on every status update that carries a batch (some 4 µs a
 * displacing inject, profiled). A value `toJson` writes unusually (a
 * Timestamp out of range, an enum value without a name) defers to it.
 * `batch-json.test.ts` holds it to `toJson` for arbitrary batches.
 */
export function batchJson(batch: TaskReminderEventBatch): JsonValue {
  return (
    write(() => {
      const json: JsonObject = {};
      if (batch.taskId !== '') json.taskId = batch.taskId;
      if (batch.events.length > 0) json.events = batch.events.map(eventJson);
      return json;
    }) ?? toJson(TaskReminderEventBatchSchema, batch)
  );
}

function eventJson(event: TaskReminderEvent): JsonObject {
  const json: JsonObject = {};
  if (event.reminderId !== '') json.reminderId = event.reminderId;
  if (event.dedupeKey !== '') json.dedupeKey = event.dedupeKey;
  if (event.eventTime !== undefined) json.eventTime = timestampJson(event.eventTime);
  const body = event.event;
  switch (body.case) {
    case 'emitted': {
      const v: JsonObject = {};
      if (body.value.turn !== 0) v.turn = body.value.turn;
      if (body.value.turnsRemaining !== 0) v.turnsRemaining = body.value.turnsRemaining;
      json.emitted = v;
      break;
    }
    case 'displaced': {
      const v: JsonObject = {};
      if (body.value.displacedBy !== '') v.displacedBy = body.value.displacedBy;
      json.displaced = v;
      break;
    }
    case 'expired': {
      const v: JsonObject = {};
      if (body.value.lastTurn !== 0) v.lastTurn = body.value.lastTurn;
      if (body.value.turnsSurfaced !== 0) v.turnsSurfaced = body.value.turnsSurfaced;
      if (body.value.taskEnded) v.taskEnded = true;
      json.expired = v;
      break;
    }
    case 'cancelled': {
      const v: JsonObject = {};
      if (body.value.turnsSurfaced !== 0) v.turnsSurfaced = body.value.turnsSurfaced;
      json.cancelled = v;
      break;
    }
    case 'dropped': {
      const v: JsonObject = {};
      if (body.value.taskState !== '') v.taskState = body.value.taskState;
      json.dropped = v;
      break;
    }
    case 'forward':
      json.forward = forwardJson(body.value);
      break;
    case undefined:
      break;
    default: {
      // A kind added to the proto fails to compile here until it is written.
      const unwritten: never = body;
      throw new Error(`event kind ${String(unwritten)} has no JSON writer`);
    }
  }
  return json;
}
