/**
 * What an HTTP binding may say about a failure raised before it dispatched a
 * call: body-parser's errors (too large, unsupported encoding or charset,
 * aborted, malformed JSON) or anything else an express stack throws. A
 * client error keeps its status and its message, which body-parser writes for
 * the caller (`expose`); anything else is a plain 500 whose message names no
 * internals: no stack, no file path (W13). Shared by the JSON-RPC and REST
 * bindings so both judge a failure the same way.
 */
export interface HttpFailure {
  /** The HTTP status: the error's own 4xx, else 500. */
  readonly status: number;
  /** Safe to send: the caller-facing message of a 4xx, a fixed text otherwise. */
  readonly message: string;
  /** The body is not JSON (JSON-RPC answers -32700, REST 400). */
  readonly malformedJson: boolean;
}

export function httpFailureOf(error: unknown): HttpFailure {
  const fields =
    typeof error === 'object' && error !== null ? (error as Record<string, unknown>) : {};
  const malformedJson =
    fields.type === 'entity.parse.failed' || (error instanceof SyntaxError && 'body' in fields);
  if (malformedJson) return { status: 400, message: 'Invalid JSON payload.', malformedJson };
  const status = typeof fields.status === 'number' ? fields.status : fields.statusCode;
  if (typeof status === 'number' && Number.isInteger(status) && status >= 400 && status < 500) {
    const message =
      fields.expose !== false && typeof fields.message === 'string' && fields.message !== ''
        ? fields.message
        : 'The request could not be read.';
    return { status, message, malformedJson };
  }
  return { status: 500, message: 'Internal error.', malformedJson };
}

/**
 * body-parser stopped reading at its limit (W12): each HTTP binding answers
 * 413 with a message quoting its own limit instead of body-parser's text.
 */
export function isBodyTooLarge(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'type' in error
    ? error.type === 'entity.too.large'
    : false;
}
