/**
 * Default bound for waiting on an observed event: a hang guard only, so a
 * hang fails the case instead of the run; generous enough that a loaded
 * machine never reaches it (issue 8 §7).
 */
export const WAIT_MS = 30_000;

export interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Races `promise` against a bounded timeout that names what was awaited. */
export async function within<T>(promise: Promise<T>, what: string, ms = WAIT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Awaits a promise that must reject and returns its error. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail, but it succeeded');
}

/**
 * Polls `check` until it holds, for a condition no event announces (a
 * database row, a connection's state); rejects after a bounded timeout that
 * names what was awaited.
 */
export async function poll(
  check: () => boolean | Promise<boolean>,
  what: string,
  ms = WAIT_MS,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
