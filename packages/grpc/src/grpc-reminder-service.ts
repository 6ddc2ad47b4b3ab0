import type { UserBuilder } from '@a2a-js/sdk/server/grpc';
import { ReminderError } from '@a2a-reminders/core';
import type { ReadRequest, ReminderBindingOptions } from '@a2a-reminders/core/protocol';
import {
  DEFAULT_MAX_REQUEST_BYTES,
  reminderErrorWire,
  runReminderCall,
} from '@a2a-reminders/core/protocol';
import type { ReminderRpc } from '@a2a-reminders/proto';
import { reminderRpcs } from '@a2a-reminders/proto';
import type { Message } from '@bufbuild/protobuf';
import type {
  ServerErrorResponse,
  ServerUnaryCall,
  sendUnaryData,
  UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { Metadata } from '@grpc/grpc-js';
import { activatedExtensionsMetadata, metadataHeaders } from './grpc-metadata.js';
import { encodeStatusDetailsBin, GRPC_STATUS_DETAILS_BIN } from './status-details-bin.js';
import type { ReminderMethodName, ReminderRequest } from './task-reminder-service-definition.js';
import { EncodedRequest } from './task-reminder-service-definition.js';

export { DEFAULT_MAX_REQUEST_BYTES };

/** Options of {@link grpcReminderService}: the SDK's `GrpcServiceOptions`, the reminder service, the limit. */
export interface GrpcReminderServiceOptions extends ReminderBindingOptions<UserBuilder> {
  /**
   * Largest request accepted, in encoded bytes; default 64 KiB. Larger ones
   * get INVALID_ARGUMENT on their raw length, before they are decoded or any
   * other check runs (W12). grpc-js's server-wide
   * `grpc.max_receive_message_length` (default 4 MiB) still applies above it.
   */
  readonly maxRequestBytes?: number;
}

/**
 * The grpc-js implementation of TaskReminderService, for
 * `server.addService(TaskReminderServiceDefinition, grpcReminderService(options))`
 * next to the SDK's `server.addService(A2AService, grpcService(options))`.
 * Pass it the same requestHandler, userBuilder and contextBuilder as the SDK's
 * service, so both resolve the caller the same way (W7).
 */
export function grpcReminderService(
  options: GrpcReminderServiceOptions,
): UntypedServiceImplementation {
  const implementation: UntypedServiceImplementation = {};
  for (const rpc of reminderRpcs) {
    const name = rpc.method.localName as ReminderMethodName;
    implementation[name] = (
      call: ServerUnaryCall<ReminderRequest, Message>,
      callback: sendUnaryData<Message>,
    ) => {
      void handleUnary(options, rpc, call, callback);
    };
  }
  return implementation;
}

async function handleUnary(
  options: GrpcReminderServiceOptions,
  rpc: ReminderRpc,
  call: ServerUnaryCall<ReminderRequest, Message>,
  callback: sendUnaryData<Message>,
): Promise<void> {
  let read: ReadRequest;
  try {
    read = decodeWithin(call.request, options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES);
  } catch (error) {
    callback(toServiceError(ReminderError.from(error)), null);
    return;
  }
  const { request } = read;
  const outcome = await runReminderCall({
    // Named, not spread: one call shape whatever options the user passed.
    reminders: options.reminders,
    requestHandler: options.requestHandler,
    contextBuilder: options.contextBuilder,
    rpc,
    binding: 'GRPC',
    headers: metadataHeaders(call.metadata),
    // The SDK's grpcService takes the tenant from the request's field, as is.
    tenant: 'tenant' in request && typeof request.tenant === 'string' ? request.tenant : '',
    user: () => options.userBuilder(call),
    read: () => read,
  });
  if (outcome.ok) {
    call.sendMetadata(activatedExtensionsMetadata(outcome.activatedExtensions));
    callback(null, outcome.response);
  } else {
    callback(toServiceError(outcome.error), null);
  }
}

/**
 * The request within the limit: the raw length is checked before the bytes
 * are decoded (W12); bytes that are no message are an envelope error (W3).
 * What decodes but cannot be read is a violation the service reports (R45).
 */
function decodeWithin(received: ReminderRequest, maxBytes: number): ReadRequest {
  if (!(received instanceof EncodedRequest)) return { request: received, violations: [] };
  if (received.byteLength > maxBytes) {
    throw new ReminderError(
      'INVALID_ARGUMENT',
      `request of ${received.byteLength} bytes exceeds the limit of ${maxBytes} bytes`,
      { metadata: { limit: String(maxBytes) } },
    );
  }
  return received.decode();
}

/** The status from the table (R39) and the rich `google.rpc.Status` in `grpc-status-details-bin` (R40). */
function toServiceError(error: ReminderError): ServerErrorResponse {
  const code = reminderErrorWire[error.code].grpc;
  const metadata = new Metadata();
  metadata.set(GRPC_STATUS_DETAILS_BIN, encodeStatusDetailsBin(error, code));
  return Object.assign(new Error(error.message), { code, details: error.message, metadata });
}
