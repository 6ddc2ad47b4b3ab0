import { ReminderError } from '@a2a-reminders/core';

/**
 * PostgreSQL SQLSTATEs that mean the database could not do the work now, not
 * that the work was wrong: connection exceptions (class 08), the server
 * shutting down or starting (57P01–57P03), too many connections (53300), a
 * full disk or memory (53100, 53200), a statement or lock deadline (57014,
 * 55P03), a transaction ended for idling (25P03), and the transient
 * conflicts a retry resolves (40001, 40P01).
 */
const POSTGRES_UNAVAILABLE = new Set([
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '53100',
  '53200',
  '57014',
  '55P03',
  '25P03',
  '40001',
  '40P01',
]);

/** SQLite result codes (primary, before any `_` extension) that mean the file cannot be written now. */
const SQLITE_UNAVAILABLE = new Set([
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_FULL',
  'SQLITE_READONLY',
  'SQLITE_IOERR',
  'SQLITE_CANTOPEN',
  'SQLITE_PROTOCOL',
]);

/** Socket errors of a connection that failed or was cut. */
const SOCKET_UNAVAILABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTCONN',
  'EAI_AGAIN',
]);

/** Messages of the drivers' own connection failures, which carry no code. */
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'is not queryable',
  'Cannot use a pool after calling end',
  'driver has already been destroyed',
  'database connection is not open',
  'Query read timeout',
  'database statement deadline',
];

/**
 * R69: whether an error (or any error in its `cause` chain) says the
 * database was unreachable or could not write, so the call may succeed if
 * retried, rather than that the call was wrong or the code is broken.
 */
export function isStoreUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 8; depth += 1) {
    if (e instanceof ReminderError) return e.code === 'UNAVAILABLE';
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (code.startsWith('08') && code.length === 5) return true;
      if (POSTGRES_UNAVAILABLE.has(code) || SOCKET_UNAVAILABLE.has(code)) return true;
      if (SQLITE_UNAVAILABLE.has(code.split('_', 2).join('_'))) return true;
    }
    if (UNAVAILABLE_MESSAGES.some((m) => e instanceof Error && e.message.includes(m))) return true;
    e = e.cause;
  }
  return false;
}

/** The UNAVAILABLE answer for a store failure (R69); the driver's text stays in `cause`, for logs. */
export function storeUnavailable(cause: unknown): ReminderError {
  return new ReminderError(
    'UNAVAILABLE',
    'the task store is unavailable (its database could not be reached or could not write); retry the call',
    { cause },
  );
}

/** Rethrows a store failure as UNAVAILABLE (R69); every other error as it is. */
export function rethrowStoreFailure(error: unknown): never {
  if (isStoreUnavailable(error) && !(error instanceof ReminderError)) {
    throw storeUnavailable(error);
  }
  throw error;
}

/** Whether the failure was a deadline running out: retrying would only wait as long again. */
export function isDeadline(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 8; depth += 1) {
    const code = (e as { code?: unknown }).code;
    if (code === '57014' || code === '55P03') return true;
    if (e.message.includes('deadline') || e.message.includes('timeout')) return true;
    e = e.cause;
  }
  return false;
}

/**
 * How long to pause before trying a failed call again, or `undefined` not
 * to: given the failure, the tries so far and the ms since the first.
 */
export type RetryPause = (error: unknown, tries: number, elapsedMs: number) => number | undefined;

/**
 * Runs `attempt`, and again after the pause `pause` gives, while it fails
 * for the store's sake (R69); a failure not retried becomes UNAVAILABLE.
 * Other errors (a ReminderError of the rules, a bug) pass through at once.
 */
export async function withStoreRetry<T>(attempt: () => Promise<T>, pause: RetryPause): Promise<T> {
  const started = performance.now();
  for (let tries = 1; ; tries += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (!isStoreUnavailable(error) || error instanceof ReminderError) throw error;
      const ms = pause(error, tries, performance.now() - started);
      if (ms === undefined) throw storeUnavailable(error);
      await new Promise((resolve) => setTimeout(resolve, ms));
    }
  }
}

/** Whether SQLite refused for another connection's lock (SQLITE_BUSY or SQLITE_LOCKED, any extended code). */
export function isSqliteBusy(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 8; depth += 1) {
    const code = (e as { code?: unknown }).code;
    if (
      typeof code === 'string' &&
      (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))
    ) {
      return true;
    }
    e = e.cause;
  }
  return false;
}
