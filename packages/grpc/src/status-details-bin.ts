import type { ReminderError } from '@a2a-reminders/core';
import { BadRequestSchema, ErrorInfoSchema, StatusSchema } from '@a2a-reminders/proto';
import { create, isMessage, toBinary } from '@bufbuild/protobuf';
import type { Any } from '@bufbuild/protobuf/wkt';
import { anyPack } from '@bufbuild/protobuf/wkt';

/** The trailer gRPC's rich error model uses for a binary `google.rpc.Status`. */
export const GRPC_STATUS_DETAILS_BIN = 'grpc-status-details-bin';

/**
 * The binary `google.rpc.Status` for an error, with its ErrorInfo and
 * BadRequest details packed in `Any` (A2A v1.0 §5: gRPC carries the details
 * in `grpc-status-details-bin`, as the SDK does).
 */
export function encodeStatusDetailsBin(error: ReminderError, code: number): Buffer {
  const details: Any[] = error
    .toStatusDetails()
    .map((detail) =>
      isMessage(detail, ErrorInfoSchema)
        ? anyPack(ErrorInfoSchema, detail)
        : anyPack(BadRequestSchema, detail),
    );
  const statusMessage = create(StatusSchema, { code, message: error.message, details });
  return Buffer.from(toBinary(StatusSchema, statusMessage));
}
