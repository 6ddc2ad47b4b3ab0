import { format } from 'node:util';
import { vi } from 'vitest';

/** What `console.error` printed while captured, one entry per call. */
export interface CapturedErrors extends Disposable {
  readonly lines: readonly string[];
}

/**
 * Captures `console.error` until disposed: a case that breaks the store on
 * purpose makes the bindings, the SDK and the pools report it (R69: one
 * line per unavailable call), which is expected there and noise in the run.
 * The case can assert on the lines.
 */
export function captureConsoleErrors(): CapturedErrors {
  const lines: string[] = [];
  const spy = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    lines.push(format(...args));
  });
  return {
    lines,
    [Symbol.dispose]() {
      spy.mockRestore();
    },
  };
}
