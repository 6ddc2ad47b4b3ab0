import type { ReminderErrorCode } from '@a2a-reminders/core';
import { reminderErrorCodes } from '@a2a-reminders/core';
import { status } from '@grpc/grpc-js';

/**
 * The gRPC status of every reminder error (issue 4, "Error mapping"). A2A's
 * own errors keep the status the SDK gives them (A2A v1.0 §5 table). The
 * compiler rejects the table if a code is missing.
 */
export const grpcStatusOf = {
  TASK_NOT_FOUND: status.NOT_FOUND,
  TASK_TERMINAL: status.FAILED_PRECONDITION,
  INVALID_ARGUMENT: status.INVALID_ARGUMENT,
  REMINDER_ID_CONFLICT: status.INVALID_ARGUMENT,
  REMINDER_NOT_FOUND: status.NOT_FOUND,
  REMINDER_NOT_LIVE: status.FAILED_PRECONDITION,
  REMINDER_QUOTA_EXCEEDED: status.RESOURCE_EXHAUSTED,
  EXTENSION_NOT_ACTIVATED: status.FAILED_PRECONDITION,
  VERSION_NOT_SUPPORTED: status.FAILED_PRECONDITION,
  UNAUTHENTICATED: status.UNAUTHENTICATED,
  UNIMPLEMENTED: status.UNIMPLEMENTED,
  INTERNAL: status.INTERNAL,
} as const satisfies Record<ReminderErrorCode, status>;

/**
 * The inverse of {@link grpcStatusOf}, used only when an error carries no
 * details that name its code (e.g. it came from a proxy). Where several codes
 * share a status, the first one in the table wins.
 */
const codeOfStatus: ReadonlyMap<number, ReminderErrorCode> = new Map(
  [...reminderErrorCodes].reverse().map((code) => [grpcStatusOf[code], code]),
);

/** The reminder error code a bare gRPC status stands for; INTERNAL for any other status. */
export function reminderErrorCodeOfGrpcStatus(code: number): ReminderErrorCode {
  return codeOfStatus.get(code) ?? 'INTERNAL';
}
