import type { ReminderRpcHandler } from '@a2a-reminders/core';
import { callReminderRpc, ReminderError } from '@a2a-reminders/core';
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
import type { GrpcCallContextOptions } from './grpc-call-context.js';
import { activatedExtensionsMetadata, buildGrpcCallContext } from './grpc-call-context.js';
import { grpcStatusOf } from './grpc-status-table.js';
import { encodeStatusDetailsBin, GRPC_STATUS_DETAILS_BIN } from './status-details-bin.js';
import type { ReminderMethodName, ReminderRequest } from './task-reminder-service-definition.js';
import { EncodedRequest } from './task-reminder-service-definition.js';

/** Default limit for one reminder request, in encoded bytes (issue 4). */
export const DEFAULT_MAX_REQUEST_BYTES = 64 * 1024;

/** Options of {@link grpcReminderService}; the SDK's `GrpcServiceOptions` plus the reminder service. */
export interface GrpcReminderServiceOptions extends GrpcCallContextOptions {
  /** The reminder rpcs, usually core's `createReminderService(...)`. */
  readonly reminders: ReminderRpcHandler;
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
 * service, so both resolve the caller the same way.
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
  try {
    const received = call.request;
    // W12: the raw length is checked before the bytes are decoded.
    const maxBytes = options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;
    const size = received instanceof EncodedRequest ? received.byteLength : 0;
    if (size > maxBytes) {
      throw new ReminderError(
        'INVALID_ARGUMENT',
        `request of ${size} bytes exceeds the limit of ${maxBytes} bytes`,
        { metadata: { limit: String(maxBytes) } },
      );
    }
    const read =
      received instanceof EncodedRequest
        ? received.decode()
        : { request: received, violations: [] };
    const request = read.request;
    const tenant = 'tenant' in request && typeof request.tenant === 'string' ? request.tenant : '';
    const context = await buildGrpcCallContext(call, tenant, options);
    // R45: what could not be read is reported by the service, after authentication and activation.
    const response = await callReminderRpc(
      options.reminders,
      rpc,
      request,
      context,
      read.violations,
    );
    call.sendMetadata(activatedExtensionsMetadata(context));
    callback(null, response);
  } catch (error) {
    callback(toServiceError(ReminderError.from(error)), null);
  }
}

/** The status from the table and the rich `google.rpc.Status` in `grpc-status-details-bin`. */
export function toServiceError(error: ReminderError): ServerErrorResponse {
  const code = grpcStatusOf[error.code];
  const metadata = new Metadata();
  metadata.set(GRPC_STATUS_DETAILS_BIN, encodeStatusDetailsBin(error, code));
  return Object.assign(new Error(error.message), { code, details: error.message, metadata });
}
