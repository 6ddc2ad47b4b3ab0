import type { ReminderErrorCode } from '@a2a-reminders/core';

/** How one ReminderError code travels on REST: HTTP status and google.rpc status name. */
export interface RestWireError {
  readonly httpStatus: number;
  readonly status: string;
}

/**
 * The REST error table (issue 4: one table per binding, checked by the
 * compiler to cover every core code). HTTP statuses follow A2A v1.0.1 and
 * google.rpc.Code transcoding, as @a2a-js/sdk 1.3 does.
 */
export const restErrorTable = {
  TASK_NOT_FOUND: { httpStatus: 404, status: 'NOT_FOUND' },
  TASK_TERMINAL: { httpStatus: 400, status: 'FAILED_PRECONDITION' },
  INVALID_ARGUMENT: { httpStatus: 400, status: 'INVALID_ARGUMENT' },
  REMINDER_ID_CONFLICT: { httpStatus: 400, status: 'INVALID_ARGUMENT' },
  REMINDER_NOT_FOUND: { httpStatus: 404, status: 'NOT_FOUND' },
  REMINDER_NOT_LIVE: { httpStatus: 400, status: 'FAILED_PRECONDITION' },
  REMINDER_QUOTA_EXCEEDED: { httpStatus: 429, status: 'RESOURCE_EXHAUSTED' },
  EXTENSION_NOT_ACTIVATED: { httpStatus: 400, status: 'FAILED_PRECONDITION' },
  VERSION_NOT_SUPPORTED: { httpStatus: 400, status: 'FAILED_PRECONDITION' },
  UNAUTHENTICATED: { httpStatus: 401, status: 'UNAUTHENTICATED' },
  UNIMPLEMENTED: { httpStatus: 501, status: 'UNIMPLEMENTED' },
  INTERNAL: { httpStatus: 500, status: 'INTERNAL' },
} as const satisfies Record<ReminderErrorCode, RestWireError>;

/**
 * Codes a client may infer from status alone, when an error body carries no
 * ErrorInfo (a server other than ours). The extension's own codes always
 * come with their ErrorInfo, so they are not guessed.
 */
const inferableCodes: readonly ReminderErrorCode[] = [
  'TASK_NOT_FOUND',
  'INVALID_ARGUMENT',
  'TASK_TERMINAL',
  'UNAUTHENTICATED',
  'UNIMPLEMENTED',
  'INTERNAL',
];

/**
 * The inverse of {@link restErrorTable} for error bodies without usable
 * details; anything unrecognized is INTERNAL.
 */
export function codeOfRestError(httpStatus: number, status: string | undefined): ReminderErrorCode {
  const exact = inferableCodes.find(
    (c) => restErrorTable[c].httpStatus === httpStatus && restErrorTable[c].status === status,
  );
  if (exact !== undefined) return exact;
  if (httpStatus === 401) return 'UNAUTHENTICATED';
  if (
    status === 'INVALID_ARGUMENT' ||
    httpStatus === 400 ||
    httpStatus === 413 ||
    httpStatus === 415
  ) {
    return 'INVALID_ARGUMENT';
  }
  return 'INTERNAL';
}
