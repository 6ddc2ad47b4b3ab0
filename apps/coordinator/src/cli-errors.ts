import { A2AError } from '@a2a-js/sdk/errors';
import { ReminderError } from '@a2a-reminders/core';

/**
 * A worker the CLI could not reach. Node's fetch says only `fetch failed`
 * and keeps the why (`connect ECONNREFUSED 127.0.0.1:8080`) in its cause, and
 * the SDK's gRPC transport wraps grpc-js's UNAVAILABLE; this names what was
 * being reached and the innermost reason, in one line.
 */
export class UnreachableError extends Error {
  override readonly name = 'UnreachableError';
  constructor(what: string, cause: unknown) {
    super(`cannot reach ${what}: ${innermostText(cause)}`, { cause });
  }
}

/** Codes of the system and undici errors that mean "no answer from there", not a refusal. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EPIPE',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
]);

/** grpc-js's status for a channel that cannot connect. */
const GRPC_UNAVAILABLE = 14;

/**
 * Whether `error` is a connection failure: fetch's `TypeError: fetch failed`,
 * a system network error, or grpc-js's UNAVAILABLE, at any depth of causes.
 * Our ReminderError already names the URL it could not reach, and is left alone.
 */
export function isNetworkFailure(error: unknown): boolean {
  if (error instanceof ReminderError) return false;
  return causeChain(error).some((e) => {
    if (e instanceof TypeError && e.message === 'fetch failed') return true;
    const { code, details } = e as { code?: unknown; details?: unknown };
    if (typeof code === 'string') return NETWORK_CODES.has(code);
    return code === GRPC_UNAVAILABLE && typeof details === 'string';
  });
}

/**
 * What the CLI prints for an error, with the code a program can match on:
 * our ReminderError's code (R39) and its field violations, or the SDK's
 * `google.rpc.ErrorInfo` reason (A2A's own errors, e.g. TASK_NOT_FOUND).
 */
export function describeError(error: unknown): string {
  if (error instanceof ReminderError) {
    const violations = error.fieldViolations.map((v) => `\n  ${v.field}: ${v.description}`);
    return `error: ${error.code}: ${causeText(error)}${violations.join('')}`;
  }
  if (error instanceof A2AError) return `error: ${error.reason}: ${causeText(error)}`;
  if (error instanceof UnreachableError) return `error: ${error.message}`;
  return `error: ${causeText(error)}`;
}

/**
 * An error's message followed by those of its causes, without the ones that
 * add nothing: `fetch failed`, an AggregateError's empty message, a text an
 * outer message already quotes.
 */
function causeText(error: unknown): string {
  const texts: string[] = [];
  for (const e of causeChain(error)) {
    // Connect's errors repeat their cause's message after a `[unavailable] ` prefix.
    const text = (e instanceof AggregateError ? aggregateText(e) : messageOf(e)).replace(
      /^\[[a-z_]+\] /,
      '',
    );
    if (text === '' || text === 'fetch failed' || texts.some((t) => t.includes(text))) continue;
    texts.push(text);
  }
  return texts.length > 0 ? texts.join(': ') : String(error);
}

/** The deepest cause that says something: `connect ECONNREFUSED 127.0.0.1:8080`. */
function innermostText(error: unknown): string {
  const texts = causeChain(error)
    .map((e) => (e instanceof AggregateError ? aggregateText(e) : messageOf(e)))
    // grpc-js ends its UNAVAILABLE message with an empty "Resolution note: ".
    .map((text) => text.replace(/\.? Resolution note: *$/, ''))
    .filter((text) => text !== '' && text !== 'fetch failed');
  return texts.at(-1) ?? String(error);
}

/** Happy eyeballs tries every address of a name: `connect ECONNREFUSED ::1:80; connect …`. */
function aggregateText(error: AggregateError): string {
  if (error.message !== '') return error.message;
  return (error.errors as unknown[]).map(messageOf).join('; ');
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `error`, its cause, its cause's cause, …, stopping at a cycle. */
function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e = error; e !== undefined && e !== null && !chain.includes(e); ) {
    chain.push(e);
    e = e instanceof Error ? e.cause : undefined;
  }
  return chain;
}
