import type { ReminderErrorCode } from './errors.js';
import { reminderErrorCodes } from './errors.js';

/**
 * google.rpc.Code (google/rpc/code.proto): the numbers of gRPC's statuses
 * (grpc-js `status`, Connect `Code`), whose names a REST error body carries
 * in `status` (R39).
 */
export const RpcCode = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

export type RpcCodeName = keyof typeof RpcCode;
export type RpcCodeNumber = (typeof RpcCode)[RpcCodeName];

/** How one error code travels on each binding: the columns of R39's table. */
export interface ReminderErrorWire {
  /** The JSON-RPC error code. */
  readonly jsonRpc: number;
  /** The HTTP status of that JSON-RPC response: 200 unless R39 names another. */
  readonly jsonRpcHttp: number;
  /** The gRPC status; its name is also the REST body's `google.rpc.Status.status`. */
  readonly grpc: RpcCodeNumber;
  /** The HTTP status of the REST response. */
  readonly http: number;
}

/**
 * R39, the one error mapping of every binding. A2A's codes where A2A has the
 * error (A2A v1.0 §5); JSON-RPC -32000 for the extension's own failures,
 * told apart by their ErrorInfo reason (R40); HTTP statuses as A2A v1.0.1
 * and google.rpc.Code transcoding give them, as @a2a-js/sdk 1.3 does. The
 * compiler rejects the table when a code is missing, so a new code breaks the
 * build until its wire form is decided here.
 */
export const reminderErrorWire = {
  TASK_NOT_FOUND: { jsonRpc: -32001, jsonRpcHttp: 200, grpc: RpcCode.NOT_FOUND, http: 404 },
  TASK_TERMINAL: {
    jsonRpc: -32004,
    jsonRpcHttp: 200,
    grpc: RpcCode.FAILED_PRECONDITION,
    http: 400,
  },
  INVALID_ARGUMENT: {
    jsonRpc: -32602,
    jsonRpcHttp: 200,
    grpc: RpcCode.INVALID_ARGUMENT,
    http: 400,
  },
  REMINDER_ID_CONFLICT: {
    jsonRpc: -32602,
    jsonRpcHttp: 200,
    grpc: RpcCode.INVALID_ARGUMENT,
    http: 400,
  },
  REMINDER_NOT_FOUND: { jsonRpc: -32000, jsonRpcHttp: 200, grpc: RpcCode.NOT_FOUND, http: 404 },
  REMINDER_NOT_LIVE: {
    jsonRpc: -32004,
    jsonRpcHttp: 200,
    grpc: RpcCode.FAILED_PRECONDITION,
    http: 400,
  },
  REMINDER_QUOTA_EXCEEDED: {
    jsonRpc: -32000,
    jsonRpcHttp: 200,
    grpc: RpcCode.RESOURCE_EXHAUSTED,
    http: 429,
  },
  FORWARD_HOP_LIMIT_EXCEEDED: {
    jsonRpc: -32602,
    jsonRpcHttp: 200,
    grpc: RpcCode.INVALID_ARGUMENT,
    http: 400,
  },
  FORWARD_LOOP: {
    jsonRpc: -32602,
    jsonRpcHttp: 200,
    grpc: RpcCode.INVALID_ARGUMENT,
    http: 400,
  },
  EXTENSION_NOT_ACTIVATED: {
    jsonRpc: -32008,
    jsonRpcHttp: 200,
    grpc: RpcCode.FAILED_PRECONDITION,
    http: 400,
  },
  VERSION_NOT_SUPPORTED: {
    jsonRpc: -32009,
    jsonRpcHttp: 200,
    grpc: RpcCode.FAILED_PRECONDITION,
    http: 400,
  },
  UNAUTHENTICATED: {
    jsonRpc: -32000,
    jsonRpcHttp: 401,
    grpc: RpcCode.UNAUTHENTICATED,
    http: 401,
  },
  UNIMPLEMENTED: { jsonRpc: -32601, jsonRpcHttp: 200, grpc: RpcCode.UNIMPLEMENTED, http: 501 },
  UNAVAILABLE: { jsonRpc: -32000, jsonRpcHttp: 503, grpc: RpcCode.UNAVAILABLE, http: 503 },
  INTERNAL: { jsonRpc: -32603, jsonRpcHttp: 500, grpc: RpcCode.INTERNAL, http: 500 },
} as const satisfies Record<ReminderErrorCode, ReminderErrorWire>;

const rpcCodeNames = new Map<number, RpcCodeName>(
  Object.entries(RpcCode).map(([name, code]) => [code, name as RpcCodeName]),
);

/** The google.rpc.Code name of a gRPC status number (`NOT_FOUND` for 5). */
export function rpcCodeName(code: RpcCodeNumber): RpcCodeName;
export function rpcCodeName(code: number): RpcCodeName | undefined;
export function rpcCodeName(code: number): RpcCodeName | undefined {
  return rpcCodeNames.get(code);
}

/**
 * R69: the `Retry-After` (seconds) of an UNAVAILABLE answer on both HTTP
 * bindings. Short: a store that lost a connection usually has a new one at
 * the next call, and a restart or failover takes seconds.
 */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 1;

/** The `Retry-After` header value an error's HTTP answer carries, if any (R69). */
export function retryAfterOf(code: ReminderErrorCode): string | undefined {
  return code === 'UNAVAILABLE' ? String(UNAVAILABLE_RETRY_AFTER_SECONDS) : undefined;
}

/** JSON-RPC 2.0's own error codes (§5.1), which the JSON-RPC binding answers before dispatch. */
export const JSON_RPC_PARSE_ERROR = -32700;
export const JSON_RPC_INVALID_REQUEST = -32600;
export const JSON_RPC_METHOD_NOT_FOUND = -32601;
export const JSON_RPC_INVALID_PARAMS = -32602;
export const JSON_RPC_INTERNAL_ERROR = -32603;
/** A2A's ContentTypeNotSupportedError (A2A v1.0 §5). */
const A2A_CONTENT_TYPE_NOT_SUPPORTED = -32005;

/*
 * The inverses below serve clients that get an error without details naming
 * its code (R40): a server other than ours, or a proxy. They guess only codes
 * whose wire form means something definite to any server; the extension's own
 * codes always travel with their ErrorInfo, and anything unrecognized is
 * INTERNAL.
 */

/** Codes a JSON-RPC error means without an ErrorInfo; -32000 alone means nothing definite. */
const jsonRpcInferable: readonly ReminderErrorCode[] = [
  'TASK_NOT_FOUND',
  'TASK_TERMINAL',
  'INVALID_ARGUMENT',
  'EXTENSION_NOT_ACTIVATED',
  'VERSION_NOT_SUPPORTED',
  'UNAUTHENTICATED',
  'UNIMPLEMENTED',
  'INTERNAL',
];

/** The code of a JSON-RPC error response without usable details. */
export function codeOfJsonRpcError(code: number, httpStatus: number): ReminderErrorCode {
  const wire = (c: ReminderErrorCode) => reminderErrorWire[c];
  const exact = jsonRpcInferable.find(
    (c) => wire(c).jsonRpc === code && wire(c).jsonRpcHttp === httpStatus,
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
  const byCode = jsonRpcInferable.find(
    (c) => wire(c).jsonRpc === code && wire(c).jsonRpcHttp === 200,
  );
  return byCode ?? 'INTERNAL';
}

/** Codes a REST status means without an ErrorInfo; 429 from a proxy is no reminder quota. */
const restInferable: readonly ReminderErrorCode[] = [
  'TASK_NOT_FOUND',
  'INVALID_ARGUMENT',
  'TASK_TERMINAL',
  'UNAUTHENTICATED',
  'UNIMPLEMENTED',
  'INTERNAL',
];

/** The code of a REST error body without usable details (`status` is its google.rpc.Code name). */
export function codeOfRestError(httpStatus: number, status: string | undefined): ReminderErrorCode {
  const exact = restInferable.find(
    (c) =>
      reminderErrorWire[c].http === httpStatus && rpcCodeName(reminderErrorWire[c].grpc) === status,
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

/**
 * A gRPC status is standard on every server, so each one of the table stands
 * for the first code, in table order, that has it (NOT_FOUND is
 * TASK_NOT_FOUND, RESOURCE_EXHAUSTED the reminder quota).
 */
const codeOfStatus: ReadonlyMap<number, ReminderErrorCode> = new Map(
  [...reminderErrorCodes]
    .reverse()
    // R69's UNAVAILABLE always travels with its ErrorInfo; a bare UNAVAILABLE
    // is grpc-js's own word for an agent it could not reach, which R62 and
    // R63 record as no answer (INTERNAL), as the HTTP clients do.
    .filter((code) => code !== 'UNAVAILABLE')
    .map((code) => [reminderErrorWire[code].grpc, code]),
);

/** The code of a gRPC status without usable details; INTERNAL for a status outside the table. */
export function codeOfGrpcStatus(code: number): ReminderErrorCode {
  return codeOfStatus.get(code) ?? 'INTERNAL';
}
