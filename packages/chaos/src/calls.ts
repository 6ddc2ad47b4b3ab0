import { performance } from 'node:perf_hooks';
import { ReminderError } from '@a2a-reminders/core';

/** How a call with a deadline ended. Times are `performance.now()`. */
export type CallOutcome<T> =
  | { readonly kind: 'ok'; readonly value: T; readonly startedAt: number; readonly endedAt: number }
  | {
      readonly kind: 'error';
      /**
       * A reminder rpc: the typed code (R39), `UNREACHABLE` when the client
       * could not reach the worker at all, `UNTYPED` for anything else. A stock
       * SDK call: the error's name.
       */
      readonly code: string;
      readonly message: string;
      readonly startedAt: number;
      readonly endedAt: number;
    }
  | { readonly kind: 'hung'; readonly startedAt: number; readonly endedAt: number };

/**
 * Runs `call` under an abort deadline. An answer after the deadline is a
 * hang: the deadline bounds a failure, it never judges speed, so it is far
 * above anything the store's own deadlines allow (R70: a statement's
 * deadline is at most 12 s, a connection's 10 s).
 */
export async function withDeadline<T>(
  deadlineMs: number,
  call: (signal: AbortSignal) => Promise<T>,
  classify: (error: unknown) => string = reminderErrorCode,
): Promise<CallOutcome<T>> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(`no answer within the ${deadlineMs} ms deadline`));
  }, deadlineMs);
  const startedAt = performance.now();
  try {
    const value = await call(controller.signal);
    return { kind: 'ok', value, startedAt, endedAt: performance.now() };
  } catch (error) {
    const endedAt = performance.now();
    if (timedOut) return { kind: 'hung', startedAt, endedAt };
    return { kind: 'error', code: classify(error), message: messageOf(error), startedAt, endedAt };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The code a reminder client's error carries. The HTTP clients report a
 * worker they could not reach at all as INTERNAL with "could not reach": that
 * is the transport, not the server's answer, so it is kept apart.
 */
export function reminderErrorCode(error: unknown): string {
  if (error instanceof ReminderError) {
    if (error.code === 'INTERNAL' && error.message.includes('could not reach')) {
      return 'UNREACHABLE';
    }
    return error.code;
  }
  return 'UNTYPED';
}

/** A stock SDK call's error, by class name (its answer for a failing store is the SDK's own). */
export function sdkErrorName(error: unknown): string {
  return error instanceof Error ? error.name || 'Error' : typeof error;
}

export function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
