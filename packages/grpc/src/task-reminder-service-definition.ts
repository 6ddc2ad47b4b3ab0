import type { ReminderRpcHandler } from '@a2a-reminders/core';
import { ReminderError } from '@a2a-reminders/core';
import type { ReminderRpc } from '@a2a-reminders/proto';
import { reminderRpcs } from '@a2a-reminders/proto';
import type { Message } from '@bufbuild/protobuf';
import { fromBinary, toBinary } from '@bufbuild/protobuf';
import type { MethodDefinition } from '@grpc/grpc-js';

/** The method names of the service: the rpcs' protobuf-es local names (`injectTaskReminder`, …). */
export type ReminderMethodName = keyof ReminderRpcHandler;

/**
 * What the server sees in place of a request whose bytes are not a valid
 * message. grpc-js answers INTERNAL when a deserializer throws, so the
 * deserializer returns this instead and the handler answers INVALID_ARGUMENT
 * (issue 4: bad input gets a typed error and the server keeps serving).
 */
export class UndecodableRequest {
  readonly error: ReminderError;
  constructor(typeName: string, cause: unknown) {
    this.error = new ReminderError(
      'INVALID_ARGUMENT',
      `request is not a valid ${typeName} message`,
      { cause },
    );
  }
}

/**
 * The encoded size of each decoded request, so the service can enforce its
 * own request limit (issue 4: an oversized body gets a typed error) below
 * grpc-js's server-wide one.
 */
const encodedSizes = new WeakMap<Message, number>();

/** The encoded size in bytes of a request this definition decoded. */
export function encodedSizeOf(request: Message): number | undefined {
  return encodedSizes.get(request);
}

/** A decoded request, or the marker for bytes that did not decode. */
export type DecodedRequest = Message | UndecodableRequest;

export type ReminderMethodDefinition = MethodDefinition<DecodedRequest, Message>;

function methodDefinition(rpc: ReminderRpc): ReminderMethodDefinition {
  const { input, output } = rpc.method;
  return {
    path: rpc.grpcPath,
    requestStream: false,
    responseStream: false,
    originalName: rpc.method.localName,
    requestSerialize: (value) => {
      if (value instanceof UndecodableRequest) throw value.error;
      return Buffer.from(toBinary(input, value));
    },
    requestDeserialize: (bytes) => {
      try {
        const request = fromBinary(input, bytes);
        encodedSizes.set(request, bytes.length);
        return request;
      } catch (cause) {
        return new UndecodableRequest(input.typeName, cause);
      }
    },
    responseSerialize: (value) => Buffer.from(toBinary(output, value)),
    responseDeserialize: (bytes) => fromBinary(output, bytes),
  };
}

/**
 * The `@grpc/grpc-js` service definition of `a2a.reminders.v1.TaskReminderService`,
 * built from the protobuf-es descriptor: paths, methods and the binary codec
 * all come from the generated schemas, none is restated here. Mount it with
 * `server.addService(TaskReminderServiceDefinition, grpcReminderService(options))`.
 */
export const TaskReminderServiceDefinition: Readonly<
  Record<ReminderMethodName, ReminderMethodDefinition>
> = Object.fromEntries(
  reminderRpcs.map((rpc) => [rpc.method.localName, methodDefinition(rpc)]),
) as Record<ReminderMethodName, ReminderMethodDefinition>;
