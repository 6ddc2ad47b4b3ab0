import type { ReminderErrorCode } from '@a2a-reminders/core';

/** How one ReminderError code travels on JSON-RPC: the error code and the HTTP status. */
export interface JsonRpcWireError {
  readonly code: number;
  readonly httpStatus: number;
}

/**
 * The JSON-RPC error table (issue 4: one table per binding, checked by the
 * compiler to cover every core code). A2A codes where A2A has the error
 * (A2A v1.0 §5); -32000 (implementation-defined server error) for the
 * extension's own failures, which carry the extension's ErrorInfo reason.
 * HTTP status is 200 as in @a2a-js/sdk 1.3, except 401 for an
 * unauthenticated caller and 500 for a server fault.
 */
export const jsonRpcErrorTable = {
  TASK_NOT_FOUND: { code: -32001, httpStatus: 200 },
  TASK_TERMINAL: { code: -32004, httpStatus: 200 },
  INVALID_ARGUMENT: { code: -32602, httpStatus: 200 },
  REMINDER_ID_CONFLICT: { code: -32602, httpStatus: 200 },
  REMINDER_NOT_FOUND: { code: -32000, httpStatus: 200 },
  REMINDER_NOT_LIVE: { code: -32004, httpStatus: 200 },
  REMINDER_QUOTA_EXCEEDED: { code: -32000, httpStatus: 200 },
  EXTENSION_NOT_ACTIVATED: { code: -32008, httpStatus: 200 },
  VERSION_NOT_SUPPORTED: { code: -32009, httpStatus: 200 },
  UNAUTHENTICATED: { code: -32000, httpStatus: 401 },
  UNIMPLEMENTED: { code: -32601, httpStatus: 200 },
  INTERNAL: { code: -32603, httpStatus: 500 },
} as const satisfies Record<ReminderErrorCode, JsonRpcWireError>;

/** Standard JSON-RPC 2.0 codes this binding answers with before dispatch. */
export const JSON_RPC_PARSE_ERROR = -32700;
export const JSON_RPC_INVALID_REQUEST = -32600;
export const JSON_RPC_METHOD_NOT_FOUND = -32601;
export const JSON_RPC_INTERNAL_ERROR = -32603;
const JSON_RPC_INVALID_PARAMS = -32602;
/** A2A ContentTypeNotSupportedError. */
const A2A_CONTENT_TYPE_NOT_SUPPORTED = -32005;

/**
 * Codes a client may infer from the wire code alone, when a response carries
 * no ErrorInfo (a server other than ours). The extension's own codes are left
 * out: a server that sends them always sends their ErrorInfo, and -32000 alone
 * means nothing definite.
 */
const inferableCodes: readonly ReminderErrorCode[] = [
  'TASK_NOT_FOUND',
  'TASK_TERMINAL',
  'INVALID_ARGUMENT',
  'EXTENSION_NOT_ACTIVATED',
  'VERSION_NOT_SUPPORTED',
  'UNAUTHENTICATED',
  'UNIMPLEMENTED',
  'INTERNAL',
];

/**
 * The inverse of {@link jsonRpcErrorTable} for error responses without
 * usable details; anything unrecognized is INTERNAL.
 */
export function codeOfJsonRpcError(code: number, httpStatus: number): ReminderErrorCode {
  const exact = inferableCodes.find(
    (c) => jsonRpcErrorTable[c].code === code && jsonRpcErrorTable[c].httpStatus === httpStatus,
  );
  if (exact !== undefined) return exact;
  if (httpStatus === 401) return 'UNAUTHENTICATED';
  // The request itself was bad: parse error, invalid request, invalid params, content type.
  if (
    code === JSON_RPC_PARSE_ERROR ||
    code === JSON_RPC_INVALID_REQUEST ||
    code === JSON_RPC_INVALID_PARAMS ||
    code === A2A_CONTENT_TYPE_NOT_SUPPORTED
  ) {
    return 'INVALID_ARGUMENT';
  }
  // A2A's own codes travel with HTTP 200 from the SDK, but proxies may change the status.
  const byCode = inferableCodes.find(
    (c) => jsonRpcErrorTable[c].code === code && jsonRpcErrorTable[c].httpStatus === 200,
  );
  return byCode ?? 'INTERNAL';
}
