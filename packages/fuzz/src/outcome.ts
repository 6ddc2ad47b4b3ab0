/**
 * How one request ended, from the caller's side:
 * - `accepted`: a success answer (or, for a JSON-RPC notification, no body, W11);
 * - `typed`: an error in the binding's own shape (JSON-RPC error object,
 *   google.rpc.Status JSON, gRPC status other than a server fault);
 * - `internal`: HTTP 5xx, JSON-RPC -32603, gRPC INTERNAL/UNKNOWN/DATA_LOSS/UNAVAILABLE;
 * - `runtime`: gRPC INTERNAL answered by the gRPC runtime itself for a broken
 *   transport header or frame, before any service runs (W15);
 * - `untyped`: an answer that is none of those (HTML, no JSON, a body for a notification);
 * - `closed`: the connection ended without an answer;
 * - `hang`: no answer before the per-request deadline.
 */
export type OutcomeKind =
  | 'accepted'
  | 'typed'
  | 'internal'
  | 'runtime'
  | 'untyped'
  | 'closed'
  | 'hang';

export interface Outcome {
  readonly kind: OutcomeKind;
  /** What was seen, for the report: status, code, first bytes of the body. */
  readonly detail: string;
}

export const outcome = (kind: OutcomeKind, detail: string): Outcome => ({ kind, detail });

/** At most `n` characters of `text`, on one line. */
export function snippet(text: string, n = 160): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length <= n ? flat : `${flat.slice(0, n)}…`;
}

type JsonObject = Record<string, unknown>;

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Classifies one JSON-RPC response object (a batch answer holds several). */
function jsonRpcResponse(value: unknown): Outcome {
  if (!isObject(value))
    return outcome('untyped', `not a JSON-RPC response: ${snippet(JSON.stringify(value))}`);
  if ('result' in value) return outcome('accepted', 'result');
  const error = value.error;
  if (!isObject(error) || !Number.isInteger(error.code) || typeof error.message !== 'string') {
    return outcome('untyped', `no error object: ${snippet(JSON.stringify(value))}`);
  }
  if (error.code === -32603) return outcome('internal', `-32603 ${snippet(String(error.message))}`);
  return outcome('typed', `${String(error.code)}`);
}

/** JSON-RPC errors a server may send for a request it could not read, id null (JSON-RPC 2.0 §5). */
const ENVELOPE_ERRORS = new Set([-32700, -32600, -32005]);

export function classifyJsonRpc(
  status: number,
  body: string,
  notification: boolean,
  method: string,
  silentOk = false,
): Outcome {
  if (status >= 500) return outcome('internal', `HTTP ${status} ${snippet(body)}`);
  if (method === 'HEAD') return outcome('typed', `HEAD ${status}`);
  // express answers OPTIONS with the allowed methods as text: not an error.
  if (method === 'OPTIONS' && status < 300) return outcome('accepted', `OPTIONS ${status}`);
  if ((notification || silentOk) && body.trim() === '') {
    // W11: a notification gets no response body.
    return outcome('accepted', `HTTP ${status}, no body (notification)`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return outcome('untyped', `HTTP ${status}, not JSON: ${snippet(body)}`);
  }
  if (notification) {
    // Only a request the server could not read may be answered, with id null.
    const error = isObject(parsed) && isObject(parsed.error) ? parsed.error : undefined;
    if (error === undefined || !ENVELOPE_ERRORS.has(Number(error.code))) {
      return outcome('untyped', `notification answered (W11): HTTP ${status} ${snippet(body)}`);
    }
  }
  if (Array.isArray(parsed)) {
    const parts = parsed.map(jsonRpcResponse);
    const worst =
      parts.find((p) => p.kind === 'internal') ??
      parts.find((p) => p.kind === 'untyped') ??
      parts.find((p) => p.kind === 'typed') ??
      parts[0];
    return worst ?? outcome('typed', `HTTP ${status}, empty batch answer`);
  }
  return jsonRpcResponse(parsed);
}

export function classifyRest(status: number, body: string, method: string): Outcome {
  if (status >= 500) return outcome('internal', `HTTP ${status} ${snippet(body)}`);
  if (method === 'HEAD') return outcome(status < 400 ? 'accepted' : 'typed', `HEAD ${status}`);
  if (method === 'OPTIONS' && status < 300) return outcome('accepted', `OPTIONS ${status}`);
  if (status === 204 && body === '') return outcome('accepted', 'HTTP 204');
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return outcome('untyped', `HTTP ${status}, not JSON: ${snippet(body)}`);
  }
  if (status < 400) return outcome('accepted', `HTTP ${status}`);
  const error = isObject(parsed) ? parsed.error : undefined;
  if (!isObject(error) || typeof error.code !== 'number' || typeof error.message !== 'string') {
    return outcome('untyped', `HTTP ${status}, not a google.rpc.Status: ${snippet(body)}`);
  }
  return outcome('typed', `HTTP ${status} ${String(error.status ?? '')}`);
}

/** gRPC status codes that mean the server failed, not the request. */
const SERVER_FAULTS = new Set([2, 13, 14, 15]);

/**
 * W15: the INTERNAL answers grpc-js gives, before any service runs, to a
 * `grpc-timeout` it cannot parse and to a message it cannot decompress (the
 * status gRPC prescribes for both). Matched exactly, so an INTERNAL from
 * the reminder service is never taken for one.
 */
const RUNTIME_ANSWERS = [/^Invalid grpc-timeout value "[^"]*"$/, /^Failed to decompress message$/];

export function classifyGrpc(
  httpStatus: number | undefined,
  grpcStatus: string | undefined,
  grpcMessage: string | undefined,
): Outcome {
  if (httpStatus !== undefined && httpStatus >= 500)
    return outcome('internal', `HTTP ${httpStatus}`);
  if (httpStatus !== undefined && httpStatus !== 200) {
    // gRPC over HTTP/2: a server may refuse a non-gRPC content type with an HTTP status.
    return outcome(httpStatus >= 400 ? 'typed' : 'untyped', `HTTP ${httpStatus}`);
  }
  if (grpcStatus === undefined || !/^\d+$/.test(grpcStatus)) {
    return outcome('untyped', `no grpc-status (${String(grpcStatus)})`);
  }
  const code = Number(grpcStatus);
  const detail = `status ${code} ${snippet(decodeURIComponentSafe(grpcMessage ?? ''))}`;
  if (code === 0) return outcome('accepted', 'OK');
  const message = decodeURIComponentSafe(grpcMessage ?? '');
  if (code === 13 && RUNTIME_ANSWERS.some((answer) => answer.test(message))) {
    return outcome('runtime', detail);
  }
  return outcome(SERVER_FAULTS.has(code) ? 'internal' : 'typed', detail);
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
