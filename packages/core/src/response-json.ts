import type {
  CancelTaskReminderResponse,
  InjectTaskReminderResponse,
  ListTaskRemindersResponse,
  ReminderForward,
  ReminderProvenance,
  TaskReminder,
  TaskReminderRecord,
} from '@a2a-reminders/proto';
import {
  CancelTaskReminderResponseSchema,
  InjectTaskReminderResponseSchema,
  ListTaskRemindersResponseSchema,
  ReminderStateSchema,
} from '@a2a-reminders/proto';
import type { JsonObject, JsonValue } from '@bufbuild/protobuf';
import type { Timestamp } from '@bufbuild/protobuf/wkt';

/**
 * The ProtoJSON of the three rpcs' responses, written field by field: what
 * protobuf-es `toJson` gives (camelCase names in field order, defaults
 * omitted, enums by name, Timestamps as RFC 3339), without its reflection
 * on the path of every call. `response-json.test.ts` holds it to `toJson`
 * for arbitrary messages. A value `toJson` refuses or writes unusually (a
 * Timestamp out of range, metadata that is not plain JSON, an enum value
 * without a name) makes the writer return undefined, and the caller uses
 * `toJson`, which then answers as it always did.
 */
export type ResponseJsonWriter = (message: never) => JsonValue | undefined;

/** Writers by response type name, for `toResponseJson`. */
export const RESPONSE_JSON_WRITERS: ReadonlyMap<string, ResponseJsonWriter> = new Map<
  string,
  ResponseJsonWriter
>([
  [InjectTaskReminderResponseSchema.typeName, injectResponseJson],
  [ListTaskRemindersResponseSchema.typeName, listResponseJson],
  [CancelTaskReminderResponseSchema.typeName, cancelResponseJson],
]);

/** Signals a value that `toJson` must write (see above). */
class Unusual extends Error {}
const UNUSUAL = new Unusual();

/** `build()`, or undefined when it met a value `toJson` must write (see above). */
export function write(build: () => JsonObject): JsonObject | undefined {
  try {
    return build();
  } catch (error) {
    if (error === UNUSUAL) return undefined;
    throw error;
  }
}

export function injectResponseJson(response: InjectTaskReminderResponse): JsonValue | undefined {
  return write(() => {
    const json: JsonObject = {};
    if (response.record !== undefined) json.record = recordJson(response.record);
    if (response.displacedReminderIds.length > 0) {
      json.displacedReminderIds = [...response.displacedReminderIds];
    }
    if (response.taskState !== '') json.taskState = response.taskState;
    return json;
  });
}

export function listResponseJson(response: ListTaskRemindersResponse): JsonValue | undefined {
  return write(() => {
    const json: JsonObject = {};
    if (response.reminders.length > 0) json.reminders = response.reminders.map(recordJson);
    if (response.nextPageToken !== '') json.nextPageToken = response.nextPageToken;
    return json;
  });
}

export function cancelResponseJson(response: CancelTaskReminderResponse): JsonValue | undefined {
  return write(() => {
    const json: JsonObject = {};
    if (response.record !== undefined) json.record = recordJson(response.record);
    return json;
  });
}

function recordJson(record: TaskReminderRecord): JsonObject {
  const json: JsonObject = {};
  if (record.taskId !== '') json.taskId = record.taskId;
  if (record.reminder !== undefined) json.reminder = reminderJson(record.reminder);
  if (record.state !== 0) json.state = stateName(record.state);
  if (record.createTime !== undefined) json.createTime = timestampJson(record.createTime);
  if (record.endTime !== undefined) json.endTime = timestampJson(record.endTime);
  if (record.firstTurn !== undefined) json.firstTurn = record.firstTurn;
  if (record.turnsRemaining !== 0) json.turnsRemaining = record.turnsRemaining;
  if (record.displacedBy !== '') json.displacedBy = record.displacedBy;
  if (record.forwards.length > 0) json.forwards = record.forwards.map(forwardJson);
  return json;
}

function reminderJson(reminder: TaskReminder): JsonObject {
  const json: JsonObject = {};
  if (reminder.id !== '') json.id = reminder.id;
  if (reminder.body !== '') json.body = reminder.body;
  if (reminder.dedupeKey !== '') json.dedupeKey = reminder.dedupeKey;
  if (reminder.ttlTurns !== undefined) json.ttlTurns = reminder.ttlTurns;
  if (reminder.roleHint !== '') json.roleHint = reminder.roleHint;
  if (reminder.source !== '') json.source = reminder.source;
  if (reminder.metadata !== undefined) json.metadata = structJson(reminder.metadata);
  if (reminder.provenance !== undefined) json.provenance = provenanceJson(reminder.provenance);
  return json;
}

function provenanceJson(provenance: ReminderProvenance): JsonObject {
  const json: JsonObject = {};
  if (provenance.hops.length > 0) {
    json.hops = provenance.hops.map((hop) => {
      const h: JsonObject = {};
      if (hop.taskId !== '') h.taskId = hop.taskId;
      if (hop.reminderId !== '') h.reminderId = hop.reminderId;
      if (hop.source !== '') h.source = hop.source;
      return h;
    });
  }
  return json;
}

export function forwardJson(forward: ReminderForward): JsonObject {
  const json: JsonObject = {};
  if (forward.taskId !== '') json.taskId = forward.taskId;
  if (forward.reminderId !== '') json.reminderId = forward.reminderId;
  if (forward.state !== 0) json.state = stateName(forward.state);
  if (forward.refusal !== '') json.refusal = forward.refusal;
  if (forward.updateTime !== undefined) json.updateTime = timestampJson(forward.updateTime);
  return json;
}

const STATE_NAMES: ReadonlyMap<number, string> = new Map(
  ReminderStateSchema.values.map((value) => [value.number, value.name]),
);

function stateName(state: number): string {
  const name = STATE_NAMES.get(state);
  if (name === undefined) throw UNUSUAL;
  return name;
}

/** Earliest and latest instants ProtoJSON writes: 0001-01-01T00:00:00Z, 9999-12-31T23:59:59Z. */
const MIN_SECONDS = -62_135_596_800;
const MAX_SECONDS = 253_402_300_799;

/**
 * RFC 3339 with 0, 3, 6 or 9 fractional digits, as `toJson` writes them.
 * The date and time of day are formatted once per second: the records one
 * second's calls answer share them.
 */
export function timestampJson(timestamp: Timestamp): string {
  const seconds = Number(timestamp.seconds);
  const nanos = timestamp.nanos;
  if (
    !(seconds >= MIN_SECONDS && seconds <= MAX_SECONDS) ||
    !(nanos >= 0 && nanos <= 999_999_999)
  ) {
    throw UNUSUAL;
  }
  const prefix = secondPrefix(seconds);
  if (nanos === 0) return `${prefix}Z`;
  const fraction = String(nanos + 1_000_000_000).substring(1);
  if (fraction.endsWith('000000')) return `${prefix}.${fraction.substring(0, 3)}Z`;
  if (fraction.endsWith('000')) return `${prefix}.${fraction.substring(0, 6)}Z`;
  return `${prefix}.${fraction}Z`;
}

let cachedSecond = Number.NaN;
let cachedPrefix = '';

/** `YYYY-MM-DDTHH:MM:SS` of a second since the epoch. */
function secondPrefix(seconds: number): string {
  if (seconds !== cachedSecond) {
    cachedPrefix = new Date(seconds * 1000).toISOString().substring(0, 19);
    cachedSecond = seconds;
  }
  return cachedPrefix;
}

/**
 * A Struct's JSON is the object itself, written as is: a JSON serializer
 * copies it as `toJson`'s copy would. It is shared with the message (and so
 * with the record it came from): the JSON is for serializing, not changing.
 * Anything but plain JSON values, a non-finite number (which `toJson`
 * refuses) among them, is unusual.
 */
function structJson(struct: JsonObject): JsonObject {
  if (!isPlainJson(struct)) throw UNUSUAL;
  return struct;
}

function isPlainJson(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.every(isPlainJson);
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return false;
  for (const key of Object.keys(value)) {
    if (!isPlainJson((value as Record<string, unknown>)[key])) return false;
  }
  return true;
}
