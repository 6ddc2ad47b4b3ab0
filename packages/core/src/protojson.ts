import type { DescField, DescMessage, JsonValue, MessageShape } from '@bufbuild/protobuf';
import { create, mergeFromJson, ScalarType, toJson } from '@bufbuild/protobuf';
import type { FieldViolation } from './errors.js';
import { hasLoneSurrogate, LONE_SURROGATE_DESCRIPTION, metadataViolations } from './json-safety.js';
import type { ReadRequest } from './read-request.js';
import { RESPONSE_JSON_WRITERS } from './response-json.js';
import { throwIfInvalid } from './validation.js';

/** Requests nest a handful of messages; anything deeper is not one of ours. */
const MAX_MESSAGE_DEPTH = 16;

/** Most violations one repeated field reports; the rest of the list is summed up in one. */
export const MAX_LIST_VIOLATIONS = 16;

/**
 * R43: the integer forms ProtoJSON allows, a JSON number or a string holding
 * one (RFC 8259 number syntax). protobuf-es reads strings with `Number()`,
 * which also takes `0x10`, `0b1`, `0o7` and `+5`.
 */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

const INTEGER_SCALARS: ReadonlySet<ScalarType> = new Set([
  ScalarType.INT32,
  ScalarType.SINT32,
  ScalarType.SFIXED32,
  ScalarType.UINT32,
  ScalarType.FIXED32,
  ScalarType.INT64,
  ScalarType.SINT64,
  ScalarType.SFIXED64,
  ScalarType.UINT64,
  ScalarType.FIXED64,
]);

/**
 * Reads a request from ProtoJSON through its generated schema, field by
 * field, and never throws for a value: each field whose value cannot be read
 * is left at its default and gets a violation on its ProtoJSON path
 * (`reminder.ttlTurns`), so every unreadable value is reported at once (R8)
 * and the service reports them after authentication and activation (R45).
 * Unknown fields are ignored, as A2A readers do. `root` names the whole
 * request in the violation for a value that is not a JSON object
 * (JSON-RPC: `params`).
 */
export function readRequestJson<Desc extends DescMessage>(
  schema: Desc,
  json: unknown,
  root = '',
): ReadRequest<MessageShape<Desc>> {
  const violations: FieldViolation[] = [];
  if (!isJsonObject(json)) {
    violations.push({ field: root, description: 'must be a JSON object (the ProtoJSON request)' });
    return { request: create(schema), violations };
  }
  return { request: readMessage(schema, json, '', violations, 0), violations };
}

/**
 * Parses a request from ProtoJSON, throwing INVALID_ARGUMENT with every
 * unreadable field (R8). Bindings use {@link readRequestJson} instead, so the
 * service orders the checks (R45).
 */
export function parseRequestJson<Desc extends DescMessage>(
  schema: Desc,
  json: unknown,
): MessageShape<Desc> {
  const read = readRequestJson(schema, json);
  throwIfInvalid(read.violations);
  return read.request;
}

/**
 * The ProtoJSON of a response (camelCase names, defaults omitted): written
 * field by field for the reminder rpcs' responses (response-json.ts), by
 * protobuf-es for anything else or anything unusual.
 */
export function toResponseJson<Desc extends DescMessage>(
  schema: Desc,
  message: MessageShape<Desc>,
): JsonValue {
  const write = RESPONSE_JSON_WRITERS.get(schema.typeName);
  return write?.(message as never) ?? toJson(schema, message);
}

const fieldsByKey = new WeakMap<DescMessage, Map<string, DescField>>();

/** A message's fields by ProtoJSON name and by proto name, as ProtoJSON readers accept both. */
function fieldOf(schema: DescMessage, key: string): DescField | undefined {
  let byKey = fieldsByKey.get(schema);
  if (byKey === undefined) {
    byKey = new Map();
    for (const field of schema.fields) byKey.set(field.name, field).set(field.jsonName, field);
    fieldsByKey.set(schema, byKey);
  }
  return byKey.get(key);
}

function readMessage<Desc extends DescMessage>(
  schema: Desc,
  json: Record<string, unknown>,
  path: string,
  violations: FieldViolation[],
  depth: number,
): MessageShape<Desc> {
  const message = create(schema);
  const seen = new Set<DescField>();
  for (const [key, value] of Object.entries(json)) {
    const field = fieldOf(schema, key);
    if (field === undefined) continue;
    const at = path === '' ? field.jsonName : `${path}.${field.jsonName}`;
    if (seen.has(field)) {
      violations.push({ field: at, description: 'is set more than once' });
      continue;
    }
    seen.add(field);
    const problem = readField(schema, message, field, key, value, at, violations, depth);
    if (problem !== undefined) violations.push({ field: at, description: problem });
  }
  return message;
}

/** Reads one field into `message`; returns what is wrong with its value, if anything. */
function readField<Desc extends DescMessage>(
  schema: Desc,
  message: MessageShape<Desc>,
  field: DescField,
  key: string,
  value: unknown,
  at: string,
  violations: FieldViolation[],
  depth: number,
): string | undefined {
  if (value === null) return merge(schema, message, key, value);
  if (field.fieldKind === 'message') {
    if (field.message.typeName === 'google.protobuf.Struct') {
      // R41–R43, checked on the JSON before protobuf-es reads it (its own
      // recursion limit would otherwise answer for deep values).
      const problems = metadataViolations(value, at);
      if (problems.length > 0) {
        violations.push(...problems);
        return undefined;
      }
      return merge(schema, message, key, value);
    }
    if (field.message.typeName.startsWith('google.protobuf.')) {
      return merge(schema, message, key, value);
    }
    if (!isJsonObject(value)) return 'must be a JSON object';
    if (depth >= MAX_MESSAGE_DEPTH) return 'nests too deeply';
    const sub = readMessage(field.message, value, at, violations, depth + 1);
    setField(message, field, sub);
    return undefined;
  }
  if (
    field.fieldKind === 'list' &&
    field.listKind === 'message' &&
    !field.message.typeName.startsWith('google.protobuf.')
  ) {
    // Element by element, so a value deep in one element is reported on its
    // own path (`reminder.provenance.hops[1].source`) and the others are kept.
    if (!Array.isArray(value)) return 'must be a JSON array';
    if (depth >= MAX_MESSAGE_DEPTH) return 'nests too deeply';
    const before = violations.length;
    const items: unknown[] = [];
    for (const [i, item] of value.entries()) {
      // A refusal stays short however long the list (R59): past a few, one line says the rest.
      if (violations.length - before >= MAX_LIST_VIOLATIONS) {
        violations.push({
          field: at,
          description: `has ${value.length - i} more elements, not read: a list reports at most ${MAX_LIST_VIOLATIONS} violations`,
        });
        break;
      }
      if (isJsonObject(item)) {
        items.push(readMessage(field.message, item, `${at}[${i}]`, violations, depth + 1));
      } else {
        violations.push({ field: `${at}[${i}]`, description: 'must be a JSON object' });
      }
    }
    setField(message, field, items);
    return undefined;
  }
  if (field.fieldKind === 'scalar' && field.scalar === ScalarType.STRING) {
    if (typeof value !== 'string') return 'must be a string';
    if (hasLoneSurrogate(value)) return LONE_SURROGATE_DESCRIPTION;
    // Stored as is, which is all protobuf-es does with a JSON string; set
    // here without its reflection, on every field of every request.
    setField(message, field, value);
    return undefined;
  }
  if (field.fieldKind === 'scalar' && INTEGER_SCALARS.has(field.scalar)) {
    const integer = 'must be an integer (a JSON number, or a string holding one in decimal)';
    if (typeof value === 'string' ? !JSON_NUMBER.test(value) : typeof value !== 'number') {
      return integer;
    }
    if (field.scalar === ScalarType.INT32 && isInt32(value)) {
      // A JSON number in range, stored as protobuf-es stores it.
      setField(message, field, value);
      return undefined;
    }
    return merge(schema, message, key, value) === undefined ? undefined : integer;
  }
  return merge(schema, message, key, value);
}

function isInt32(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= -(2 ** 31) && (value as number) < 2 ** 31;
}

/** Lets protobuf-es read the one field `key` into `message`. */
function merge<Desc extends DescMessage>(
  schema: Desc,
  message: MessageShape<Desc>,
  key: string,
  value: unknown,
): string | undefined {
  try {
    mergeFromJson(schema, message, { [key]: value } as JsonValue, { ignoreUnknownFields: true });
    return undefined;
  } catch (error) {
    return describe(error);
  }
}

function setField(message: object, field: DescField, value: unknown): void {
  const record = message as Record<string, unknown>;
  if (field.oneof === undefined) record[field.localName] = value;
  else record[field.oneof.localName] = { case: field.localName, value };
}

/** protobuf-es wraps its FieldError as the cause; its message says what is wrong. */
function describe(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause instanceof Error) return cause.message;
  return error instanceof Error ? error.message : 'malformed value';
}

/** A JSON object: not null, not an array. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
