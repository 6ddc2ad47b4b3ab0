/**
 * Why {@link connectToAgent} could not connect: the card's URL and the cause
 * in the message (an unreachable agent says `connect ECONNREFUSED …`, not
 * `fetch failed`), the underlying error as `cause`.
 */
export class AgentConnectionError extends Error {
  override readonly name = 'AgentConnectionError';
  constructor(
    message: string,
    /** The agent card URL, or the card's name when the caller passed the card itself. */
    readonly agent: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/**
 * The innermost useful words of a failed fetch: undici throws `TypeError:
 * fetch failed` with the socket error as `cause`, and an AggregateError
 * (empty message) when every address of a host name refused.
 */
export function failureReason(error: unknown): string {
  const cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
  if (cause instanceof AggregateError && cause.errors.length > 0) {
    return failureReason(cause.errors[0]);
  }
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return cause.message || (typeof code === 'string' ? code : cause.name);
  }
  return String(cause);
}
