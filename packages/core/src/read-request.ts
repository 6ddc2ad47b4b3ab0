import type { DescMessage, Message } from '@bufbuild/protobuf';
import type { FieldViolation } from './errors.js';

/**
 * A request as a binding read it off the wire (R8, R45): every field whose
 * value could be read, and one violation for each field that could not (that
 * field is left at its default). Reading never refuses a call by itself: the
 * service reports these violations with its own, after authentication and
 * activation, so the order of checks does not depend on the body.
 *
 * A violation on a path outside the request's fields (`''` for a REST body,
 * `params` for JSON-RPC) says that the request as a whole was not a JSON
 * object.
 */
export interface ReadRequest<M extends Message = Message> {
  readonly request: M;
  readonly violations: readonly FieldViolation[];
}

/** True when `field` is `under` or lies inside it (`reminder.id` under `reminder`). */
function within(field: string, under: string): boolean {
  return field === under || field.startsWith(`${under}.`) || field.startsWith(`${under}[`);
}

/** The top-level field a violation path starts with (`reminder` for `reminder.metadata.x`). */
function head(path: string): string {
  return /^[^.[]*/.exec(path)?.[0] ?? '';
}

/**
 * R8: the violations of reading the request, then those of validating what
 * was read. A validation violation of a field that could not be read (or of
 * anything inside it) is dropped: it would only describe the default left in
 * the unreadable value's place ("is required" for an id that was a number).
 * When the request as a whole was unreadable only that is reported.
 */
export function mergeViolations(
  schema: DescMessage,
  read: readonly FieldViolation[],
  validated: readonly FieldViolation[],
): FieldViolation[] {
  if (read.length === 0) return [...validated];
  const whole = read.some((v) => !schema.fields.some((f) => f.jsonName === head(v.field)));
  if (whole) return [...read];
  const unreadable = read.map((v) => v.field);
  return [...read, ...validated.filter((v) => !unreadable.some((u) => within(v.field, u)))];
}
