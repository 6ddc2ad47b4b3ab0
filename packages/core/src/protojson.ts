import type { DescField, DescMessage, JsonValue, MessageShape } from '@bufbuild/protobuf';
import { fromJson, toJson } from '@bufbuild/protobuf';
import { ReminderError } from './errors.js';

/**
 * Parses a request from ProtoJSON through its generated schema (unknown
 * fields ignored, as A2A readers do). A value the schema cannot read becomes
 * INVALID_ARGUMENT with the field's ProtoJSON path (`reminder.ttlTurns`)
 * where one can be found (R8).
 */
export function parseRequestJson<Desc extends DescMessage>(
  schema: Desc,
  json: unknown,
): MessageShape<Desc> {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new ReminderError('INVALID_ARGUMENT', 'invalid request: expected a JSON object');
  }
  try {
    return fromJson(schema, json as JsonValue, { ignoreUnknownFields: true });
  } catch (error) {
    const field = failedField(error);
    const path =
      field === undefined ? nonObjectMessagePath(schema, json) : pathTo(schema, field, json);
    const description = describe(error);
    if (path === undefined) {
      throw new ReminderError('INVALID_ARGUMENT', `invalid request: ${description}`, {
        cause: error,
      });
    }
    throw new ReminderError('INVALID_ARGUMENT', `invalid request: ${path}: ${description}`, {
      fieldViolations: [{ field: path, description }],
      cause: error,
    });
  }
}

/** The ProtoJSON of a response (camelCase names, defaults omitted). */
export function toResponseJson<Desc extends DescMessage>(
  schema: Desc,
  message: MessageShape<Desc>,
): JsonValue {
  return toJson(schema, message);
}

/** protobuf-es wraps its FieldError as the cause; it names the field's descriptor. */
function failedField(error: unknown): DescField | undefined {
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause instanceof Error && 'field' in cause && typeof cause.field === 'function') {
    const field = (cause.field as () => unknown)();
    if (typeof field === 'object' && field !== null && (field as DescField).kind === 'field') {
      return field as DescField;
    }
  }
  return undefined;
}

function describe(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause instanceof Error) return cause.message;
  return error instanceof Error ? error.message : 'malformed value';
}

/**
 * The ProtoJSON path from the request root to `field`, following the
 * message fields present in the JSON (depth-first, bounded by recursion).
 */
function pathTo(
  schema: DescMessage,
  target: DescField,
  json: unknown,
  depth = 0,
): string | undefined {
  if (depth > 8 || typeof json !== 'object' || json === null || Array.isArray(json)) {
    return undefined;
  }
  const obj = json as Record<string, unknown>;
  for (const field of schema.fields) {
    const key = field.jsonName in obj ? field.jsonName : field.name in obj ? field.name : undefined;
    if (key === undefined) continue;
    if (field === target) return field.jsonName;
    if (field.fieldKind === 'message') {
      const sub = pathTo(field.message, target, obj[key], depth + 1);
      if (sub !== undefined) return `${field.jsonName}.${sub}`;
    }
  }
  return undefined;
}

/**
 * protobuf-es names no field when a message field holds a non-object (e.g.
 * `"reminder": "x"`); find the first such field in the JSON.
 */
function nonObjectMessagePath(schema: DescMessage, json: unknown, depth = 0): string | undefined {
  if (depth > 8 || typeof json !== 'object' || json === null || Array.isArray(json)) {
    return undefined;
  }
  const obj = json as Record<string, unknown>;
  for (const field of schema.fields) {
    if (field.fieldKind !== 'message') continue;
    const key = field.jsonName in obj ? field.jsonName : field.name in obj ? field.name : undefined;
    if (key === undefined) continue;
    const value = obj[key];
    if (value === null) continue;
    const wkt = field.message.typeName.startsWith('google.protobuf.');
    if (wkt && field.message.typeName !== 'google.protobuf.Struct') continue;
    if (typeof value !== 'object' || Array.isArray(value)) return field.jsonName;
    const sub = nonObjectMessagePath(field.message, value, depth + 1);
    if (sub !== undefined) return `${field.jsonName}.${sub}`;
  }
  return undefined;
}
