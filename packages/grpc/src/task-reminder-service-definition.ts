import type { ReminderRpcHandler } from '@a2a-reminders/core';
import type { ReadRequest } from '@a2a-reminders/core/protocol';
import { readRequestBinary, toMessageBinary } from '@a2a-reminders/core/protocol';
import type { ReminderRpc } from '@a2a-reminders/proto';
import { reminderRpcs } from '@a2a-reminders/proto';
import type { DescMessage, Message } from '@bufbuild/protobuf';
import { fromBinary } from '@bufbuild/protobuf';
import type { MethodDefinition } from '@grpc/grpc-js';

/** The method names of the service: the rpcs' protobuf-es local names (`injectTaskReminder`, …). */
export type ReminderMethodName = keyof ReminderRpcHandler;

/**
 * What the server receives for a request: its raw bytes, not yet decoded.
 * The service checks their length against its own limit and only then
 * decodes (W12): a request over the limit is refused without being parsed.
 * The limit is an option of each `grpcReminderService`, while this definition
 * is one shared constant, so the check lives in the handler, on these bytes.
 */
export class EncodedRequest {
  readonly bytes: Uint8Array;
  readonly #schema: DescMessage;
  constructor(schema: DescMessage, bytes: Uint8Array) {
    this.#schema = schema;
    this.bytes = bytes;
  }

  /** The length on the wire, before any decoding. */
  get byteLength(): number {
    return this.bytes.length;
  }

  /**
   * The request as core reads it: the decoded message and, for a Struct
   * nested past the decoder's limit, a violation the service reports after
   * authentication and activation (R42, R45); INVALID_ARGUMENT, thrown, for
   * bytes that are not a message (grpc-js would answer INTERNAL for a
   * throwing deserializer; W3).
   */
  decode(): ReadRequest {
    return readRequestBinary(this.#schema, this.bytes);
  }
}

/** A request as a client sends it (a message, or bytes already encoded), and as the server receives it. */
export type ReminderRequest = Message | EncodedRequest;

export type ReminderMethodDefinition = MethodDefinition<ReminderRequest, Message>;

/** The encoder's bytes as a Buffer over the same memory: `Buffer.from(bytes)` would copy them. */
function bufferOf(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function methodDefinition(rpc: ReminderRpc): ReminderMethodDefinition {
  const { input, output } = rpc.method;
  return {
    path: rpc.grpcPath,
    requestStream: false,
    responseStream: false,
    originalName: rpc.method.localName,
    requestSerialize: (value) =>
      value instanceof EncodedRequest
        ? Buffer.from(value.bytes)
        : bufferOf(toMessageBinary(input, value)),
    // No decoding here: the service first checks the length (W12).
    requestDeserialize: (bytes) => new EncodedRequest(input, bytes),
    responseSerialize: (value) => bufferOf(toMessageBinary(output, value)),
    responseDeserialize: (bytes) => fromBinary(output, bytes),
  };
}

/**
 * The `@grpc/grpc-js` service definition of `a2a.reminders.v1.TaskReminderService`,
 * built from the protobuf-es descriptor: paths, methods and the binary codec
 * come from the generated schemas (core's `toMessageBinary` writes `toBinary`'s
 * bytes for the inject request and the responses). Mount it with
 * `server.addService(TaskReminderServiceDefinition, grpcReminderService(options))`.
 */
export const TaskReminderServiceDefinition: Readonly<
  Record<ReminderMethodName, ReminderMethodDefinition>
> = Object.fromEntries(
  reminderRpcs.map((rpc) => [rpc.method.localName, methodDefinition(rpc)]),
) as Record<ReminderMethodName, ReminderMethodDefinition>;
