import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The built entry point; `turbo run test` builds the worker first. */
export const WORKER_MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

export interface SpawnedWorker {
  readonly child: ChildProcess;
  /** Every stdout line so far, READY included. */
  readonly lines: string[];
  /**
   * Every stderr line so far. Read as it comes, so a worker that reports a
   * lot (replicas log lost leases and failed reads) never blocks on a full pipe.
   */
  readonly errorLines: string[];
  readonly ready: RegExpExecArray;
}

/** Starts `dist/main.js` and resolves on its READY line. */
export function spawnMain(
  args: readonly string[],
  options: { readonly cwd?: string; readonly env?: Readonly<Record<string, string>> } = {},
): Promise<SpawnedWorker> {
  const child = spawn(process.execPath, [WORKER_MAIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.env === undefined ? {} : { env: { ...process.env, ...options.env } }),
  });
  const lines: string[] = [];
  const errorLines: string[] = [];
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (l) =>
    lines.push(l),
  );
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', (l) =>
    errorLines.push(l),
  );
  return new Promise((resolve, reject) => {
    const poll = setInterval(() => {
      for (const line of lines) {
        const ready = /^READY http=(http:\/\/\S+) grpc=(\S+:\d+)$/.exec(line);
        if (ready !== null) {
          clearInterval(poll);
          resolve({ child, lines, errorLines, ready });
        }
      }
    }, 10);
    child.once('exit', (code) => {
      clearInterval(poll);
      reject(
        new Error(`worker exited with ${code} before READY; stderr:\n${errorLines.join('\n')}`),
      );
    });
  });
}

/** Resolves with the exit code once the process ends. */
export function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}
