import type { DescField, DescMessage, MessageShape } from '@bufbuild/protobuf';
import { ScalarType } from '@bufbuild/protobuf';
import type { FieldViolation } from './errors.js';

/**
 * R42: how deeply `reminder.metadata` may nest objects and arrays, the
 * metadata object itself being level 1. Well below what every binding's
 * parser reads (protobuf-es stops at 100 nested messages, about 49 levels of
 * Struct in binary), so a refusal is always this typed violation and never a
 * parser failure.
 */
export const MAX_METADATA_DEPTH = 32;

/** With the `u` flag a paired surrogate reads as one astral code point, so only lone ones match. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * R43: a lone (unpaired) UTF-16 surrogate. It has no UTF-8 form: binary
 * protobuf would carry it as U+FFFD while ProtoJSON escapes it, so two
 * bindings would list different text.
 */
export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

export const LONE_SURROGATE_DESCRIPTION = 'must not contain an unpaired UTF-16 surrogate';

type Problem = 'depth' | 'nonFinite' | 'loneSurrogate' | 'loneSurrogateKey' | 'notJson';

export const METADATA_DEPTH_DESCRIPTION = `must nest at most ${MAX_METADATA_DEPTH} levels of objects and arrays`;

const descriptions: Record<Problem, string> = {
  depth: METADATA_DEPTH_DESCRIPTION,
  nonFinite: 'must be a finite number (JSON has no NaN or Infinity)',
  loneSurrogate: LONE_SURROGATE_DESCRIPTION,
  loneSurrogateKey: `key ${LONE_SURROGATE_DESCRIPTION}`,
  notJson: 'must be a JSON value (null, boolean, number, string, array or object)',
};

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `path.key`, or `path["key"]` (JSON-quoted, so the path itself is well-formed text) for other keys. */
function memberPath(path: string, key: string): string {
  return IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

interface Visit {
  readonly value: unknown;
  readonly at: string;
  readonly depth: number;
  /** The member's key holds a lone surrogate. */
  readonly badKey: boolean;
}

/**
 * Every way `metadata` is not JSON that each binding carries unchanged
 * (R41 non-finite numbers, R42 depth, R43 lone surrogates in keys and
 * strings), for a value read from JSON text or a typed request alike. The
 * first offending value of each kind is reported, on its path under `path`
 * (`reminder.metadata.x`, `reminder.metadata.list[2]`); the depth on `path`
 * itself. Iterative, so no nesting can exhaust the stack.
 */
export function metadataViolations(metadata: unknown, path: string): FieldViolation[] {
  if (!isPlainObject(metadata)) return [{ field: path, description: 'must be a JSON object' }];
  const found = new Map<Problem, FieldViolation>();
  const note = (problem: Problem, at: string) => {
    if (!found.has(problem)) found.set(problem, { field: at, description: descriptions[problem] });
  };
  const pending: Visit[] = [{ value: metadata, at: path, depth: 1, badKey: false }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, at, depth, badKey } = next;
    if (badKey) note('loneSurrogateKey', at);
    switch (typeof value) {
      case 'number':
        if (!Number.isFinite(value)) note('nonFinite', at);
        continue;
      case 'string':
        if (hasLoneSurrogate(value)) note('loneSurrogate', at);
        continue;
      case 'boolean':
        continue;
      case 'object':
        if (value === null) continue;
        break;
      default:
        note('notJson', at);
        continue;
    }
    if (depth > MAX_METADATA_DEPTH) {
      note('depth', path);
      continue;
    }
    const children: Visit[] = [];
    if (Array.isArray(value)) {
      value.forEach((item: unknown, i) => {
        children.push({ value: item, at: `${at}[${i}]`, depth: depth + 1, badKey: false });
      });
    } else if (isPlainObject(value)) {
      for (const [key, item] of Object.entries(value)) {
        const badKey = hasLoneSurrogate(key);
        children.push({ value: item, at: memberPath(at, key), depth: depth + 1, badKey });
      }
    } else {
      note('notJson', at);
      continue;
    }
    // Reversed, so values are visited (and the first of each kind found) in document order.
    for (let i = children.length - 1; i >= 0; i -= 1) {
      const child = children[i];
      if (child !== undefined) pending.push(child);
    }
  }
  return [...found.values()];
}

/** A field's value in a protobuf-es message, oneof members included. */
function fieldValue(record: Record<string, unknown>, field: DescField): unknown {
  if (field.oneof === undefined) return record[field.localName];
  const oneof = record[field.oneof.localName] as { case?: string; value?: unknown } | undefined;
  return oneof?.case === field.localName ? oneof.value : undefined;
}

/**
 * R43: every string field of a request message (nested messages included,
 * well-known types aside) that holds a lone surrogate, on its ProtoJSON path.
 * Read from the schema, so no field is listed by hand.
 */
export function loneSurrogateViolations<Desc extends DescMessage>(
  schema: Desc,
  message: MessageShape<Desc>,
  path = '',
): FieldViolation[] {
  const violations: FieldViolation[] = [];
  const record = message as unknown as Record<string, unknown>;
  // Paths are built only to report a field or to descend into one: a clean
  // request, nearly every one, builds no string per field (every inject).
  const pathOf = (field: DescField) => (path === '' ? field.jsonName : `${path}.${field.jsonName}`);
  for (const field of schema.fields) {
    const value = fieldValue(record, field);
    if (field.fieldKind === 'scalar' && field.scalar === ScalarType.STRING) {
      if (typeof value === 'string' && hasLoneSurrogate(value)) {
        violations.push({ field: pathOf(field), description: LONE_SURROGATE_DESCRIPTION });
      }
    } else if (field.fieldKind === 'list' && Array.isArray(value)) {
      value.forEach((item: unknown, i) => {
        if (typeof item === 'string' && hasLoneSurrogate(item)) {
          violations.push({
            field: `${pathOf(field)}[${i}]`,
            description: LONE_SURROGATE_DESCRIPTION,
          });
        } else if (field.listKind === 'message' && typeof item === 'object' && item !== null) {
          const element = `${pathOf(field)}[${i}]`;
          violations.push(
            ...loneSurrogateViolations(field.message, item as MessageShape<DescMessage>, element),
          );
        }
      });
    } else if (
      field.fieldKind === 'message' &&
      !field.message.typeName.startsWith('google.protobuf.') &&
      typeof value === 'object' &&
      value !== null
    ) {
      violations.push(
        ...loneSurrogateViolations(
          field.message,
          value as MessageShape<DescMessage>,
          pathOf(field),
        ),
      );
    }
  }
  return violations;
}

/**
 * R44: metadata as ProtoJSON reads it back. JSON writes -0 as `0`, so a -0
 * kept in a record would list as 0 on JSON-RPC and REST but as -0 over gRPC;
 * it is stored as 0. Returns `value` itself when it holds no -0. Recursive:
 * call it only on metadata validation has bounded (R42).
 */
export function withoutNegativeZero<T>(value: T): T {
  if (typeof value === 'number') return (Object.is(value, -0) ? 0 : value) as T;
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const items = value.map((item: unknown) => withoutNegativeZero(item));
    return (items.some((item, i) => !Object.is(item, value[i])) ? items : value) as T;
  }
  let changed = false;
  const entries = Object.entries(value).map(([key, item]) => {
    const normal = withoutNegativeZero(item);
    if (!Object.is(normal, item)) changed = true;
    return [key, normal] as const;
  });
  // fromEntries defines each key, so a `__proto__` member stays a member.
  return (changed ? Object.fromEntries(entries) : value) as T;
}
