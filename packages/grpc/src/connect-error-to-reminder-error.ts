import { ReminderError } from '@a2a-reminders/core';
import { BadRequestSchema, ErrorInfoSchema } from '@a2a-reminders/proto';
import { ConnectError } from '@connectrpc/connect';
import { reminderErrorCodeOfGrpcStatus } from './grpc-status-table.js';

/**
 * Turns what a Connect gRPC call threw back into the ReminderError the server
 * sent: the code from the ErrorInfo/BadRequest details of
 * `grpc-status-details-bin`, else from the status code (issue 4: every client
 * returns the same typed error).
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
    new ReminderError(reminderErrorCodeOfGrpcStatus(connectError.code), connectError.rawMessage, {
      cause: connectError,
    })
  );
}
