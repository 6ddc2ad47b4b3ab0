import type { DescMessage, MessageShape } from '@bufbuild/protobuf';
import { fromBinary } from '@bufbuild/protobuf';
import { BinaryReader, BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { StructSchema } from '@bufbuild/protobuf/wkt';
import type { FieldViolation } from './errors.js';
import { ReminderError } from './errors.js';
import { METADATA_DEPTH_DESCRIPTION } from './json-safety.js';
import type { ReadRequest } from './read-request.js';

/** protobuf-es's default: a message nested deeper than this does not decode. */
const RECURSION_LIMIT = 100;

/**
 * Reads a request from the protobuf binary form (gRPC). Bytes that are not a
 * message of `schema` are an envelope error (W3): INVALID_ARGUMENT, thrown.
 * A `google.protobuf.Struct` nested past protobuf-es's recursion limit is not
 * an envelope error but a value the service reports, after authentication
 * and activation, as a violation on its field (R42, R45); the rest of the
 * request is read without it.
 */
export function readRequestBinary<Desc extends DescMessage>(
  schema: Desc,
  bytes: Uint8Array,
): ReadRequest<MessageShape<Desc>> {
  try {
    return { request: fromBinary(schema, bytes), violations: [] };
  } catch (error) {
    const undecodable = new ReminderError(
      'INVALID_ARGUMENT',
      `request is not a valid ${schema.typeName} message`,
      { cause: error },
    );
    try {
      const violations: FieldViolation[] = [];
      const rest = withoutUnreadableStructs(schema, bytes, '', 1, violations);
      if (violations.length === 0) throw undecodable;
      return { request: fromBinary(schema, rest), violations };
    } catch {
      throw undecodable;
    }
  }
}

/**
 * The message's bytes without the Struct fields that do not decode within
 * the recursion budget left at their depth, each recorded as a violation.
 * Recurses only along the schema's own message fields (requests nest two).
 */
function withoutUnreadableStructs(
  schema: DescMessage,
  bytes: Uint8Array,
  path: string,
  depth: number,
  violations: FieldViolation[],
): Uint8Array {
  if (depth > 8) throw new Error('request messages do not nest this deep');
  const reader = new BinaryReader(bytes);
  const writer = new BinaryWriter();
  while (reader.pos < reader.len) {
    const [no, wireType] = reader.tag();
    const field = schema.fields.find((f) => f.number === no);
    if (field?.fieldKind !== 'message' || wireType !== WireType.LengthDelimited) {
      writer.tag(no, wireType).raw(reader.skip(wireType, no));
      continue;
    }
    const value = reader.bytes();
    const at = path === '' ? field.jsonName : `${path}.${field.jsonName}`;
    if (field.message.typeName === StructSchema.typeName) {
      try {
        fromBinary(StructSchema, value, { recursionLimit: RECURSION_LIMIT - depth });
      } catch (error) {
        // Any other fault of the bytes stays an envelope error.
        if (!isRecursionLimit(error)) throw error;
        violations.push({ field: at, description: METADATA_DEPTH_DESCRIPTION });
        continue;
      }
      writer.tag(no, wireType).bytes(value);
    } else if (field.message.typeName.startsWith('google.protobuf.')) {
      writer.tag(no, wireType).bytes(value);
    } else {
      const sub = withoutUnreadableStructs(field.message, value, at, depth + 1, violations);
      writer.tag(no, wireType).bytes(sub);
    }
  }
  return writer.finish();
}

/** protobuf-es names this failure only in its message. */
function isRecursionLimit(error: unknown): boolean {
  return error instanceof Error && error.message.includes('maximum recursion depth');
}
