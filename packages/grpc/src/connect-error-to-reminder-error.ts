import { ReminderError } from '@a2a-reminders/core';
import { codeOfGrpcStatus } from '@a2a-reminders/core/protocol';
import { BadRequestSchema, ErrorInfoSchema } from '@a2a-reminders/proto';
import { ConnectError } from '@connectrpc/connect';

/**
 * Turns what a Connect gRPC call threw back into the ReminderError the server
 * sent: the code from the ErrorInfo/BadRequest details of
 * `grpc-status-details-bin` (R40), else from the status code (R39).
 */
export function reminderErrorFromConnectError(error: unknown): ReminderError {
  if (error instanceof ReminderError) return error;
  const connectError = ConnectError.from(error);
  const details = [
    ...connectError.findDetails(ErrorInfoSchema),
    ...connectError.findDetails(BadRequestSchema),
  ];
  return (
    ReminderError.fromStatusDetails(connectError.rawMessage, details) ??
    new ReminderError(codeOfGrpcStatus(connectError.code), connectError.rawMessage, {
      cause: connectError,
    })
  );
}
