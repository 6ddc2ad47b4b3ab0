import type { HttpFailure, JsonResponse } from '@a2a-reminders/core/protocol';
import {
  httpFailureOf,
  isBodyTooLarge,
  JSON_RPC_INTERNAL_ERROR,
  JSON_RPC_INVALID_REQUEST,
  JSON_RPC_PARSE_ERROR,
  sendEmpty,
  sendJson,
} from '@a2a-reminders/core/protocol';

/** JSON-RPC 2.0 ids: a string, an integer or null. */
export type JsonRpcId = string | number | null;

/** A request without an `id` member (JSON-RPC 2.0 §4.1): performed, never answered (W11). */
export const NOTIFICATION = Symbol('notification');
export type ReplyTo = JsonRpcId | typeof NOTIFICATION;

export interface JsonRpcErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

export function isJsonRpcId(value: unknown): value is JsonRpcId {
  return (
    typeof value === 'string' ||
    value === null ||
    (typeof value === 'number' && Number.isInteger(value))
  );
}

export function replyResult(res: JsonResponse, to: ReplyTo, result: unknown): void {
  if (to === NOTIFICATION) sendEmpty(res, 204);
  else sendJson(res, 200, { jsonrpc: '2.0', id: to, result });
}

/**
 * Answers with a JSON-RPC error object. A notification gets no reply, not
 * even an error: JSON-RPC 2.0 forbids one, so HTTP carries 204 and no body (W11).
 */
export function replyError(
  res: JsonResponse,
  httpStatus: number,
  to: ReplyTo,
  error: JsonRpcErrorObject,
): void {
  if (to === NOTIFICATION) sendEmpty(res, 204);
  else sendJson(res, httpStatus, { jsonrpc: '2.0', id: to, error });
}

/**
 * Answers a body that could not be read, before any request was (`id: null`,
 * W3, W13), as the SDK's jsonErrorHandler answers malformed JSON: -32700 with
 * HTTP 200; a body over the limit 413 -32600 with `tooLarge`, the message
 * quoting the limit (W12), when given; another client error its own 4xx and
 * -32600; anything else a bare 500 -32603 that names no internals.
 */
export function replyBodyFailure(
  res: JsonResponse,
  error: unknown,
  tooLarge?: string,
): HttpFailure {
  const failure = httpFailureOf(error);
  if (failure.malformedJson) {
    replyError(res, 200, null, { code: JSON_RPC_PARSE_ERROR, message: failure.message });
  } else if (tooLarge !== undefined && isBodyTooLarge(error)) {
    replyError(res, 413, null, { code: JSON_RPC_INVALID_REQUEST, message: tooLarge });
  } else {
    const code = failure.status === 500 ? JSON_RPC_INTERNAL_ERROR : JSON_RPC_INVALID_REQUEST;
    replyError(res, failure.status, null, { code, message: failure.message });
  }
  return failure;
}
