import { reminderTypeRegistry } from '@a2a-reminders/proto';
import type { JsonObject, JsonValue, Message } from '@bufbuild/protobuf';
import { fromJson, toJson } from '@bufbuild/protobuf';
import { AnySchema, anyPack, anyUnpack } from '@bufbuild/protobuf/wkt';

/**
 * Writes google.rpc detail messages as ProtoJSON `Any` objects
 * (`{"@type": "type.googleapis.com/google.rpc.ErrorInfo", ...}`), the form
 * A2A v1.0 §5 puts in JSON-RPC `error.data` and in REST `error.details`.
 */
export function statusDetailsToJson(details: readonly Message[]): JsonObject[] {
  return details.map((detail) => {
    const desc = reminderTypeRegistry.getMessage(detail.$typeName);
    if (desc === undefined) throw new Error(`no descriptor for error detail ${detail.$typeName}`);
    return toJson(AnySchema, anyPack(desc, detail), {
      registry: reminderTypeRegistry,
    }) as JsonObject;
  });
}

/**
 * Reads ProtoJSON `Any` detail objects back into messages. Details of types
 * this API does not know are skipped: A2A lets servers add any detail.
 */
export function statusDetailsFromJson(value: unknown): Message[] {
  if (!Array.isArray(value)) return [];
  const out: Message[] = [];
  for (const item of value as JsonValue[]) {
    try {
      const any = fromJson(AnySchema, item, {
        registry: reminderTypeRegistry,
        ignoreUnknownFields: true,
      });
      const message = anyUnpack(any, reminderTypeRegistry);
      if (message !== undefined) out.push(message);
    } catch {
      // Unknown @type or malformed detail: not ours to interpret.
    }
  }
  return out;
}
