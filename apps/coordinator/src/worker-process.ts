import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/** A worker started as a child process, once it printed its READY line. */
export interface WorkerProcess {
  readonly child: ChildProcess;
  readonly httpBaseUrl: string;
  readonly grpcAddress: string;
  /** PostgreSQL stores: the `REPLICA <id> lease-ms=<n>` line the worker printed before READY. */
  readonly replica?: { readonly id: string; readonly leaseMs: number };
}

export interface SpawnWorkerOptions {
  /** Every line the worker prints (STORE, REPLICA, ...) but READY, before and after it. */
  readonly onOutput?: (line: string) => void;
  /**
   * Every line the worker writes to stderr; unset, its stderr is this
   * process's. Tests that provoke errors on purpose collect it instead, so the
   * SDK's logs of those errors do not read as failures.
   */
  readonly onStderr?: (line: string) => void;
  /** Aborting kills the worker and rejects, e.g. on Ctrl-C while it starts. */
  readonly signal?: AbortSignal;
}

/** Starts the worker and resolves on its READY line. */
export async function spawnWorker(
  workerMain: string,
  args: readonly string[],
  { onOutput = () => {}, onStderr, signal }: SpawnWorkerOptions = {},
): Promise<WorkerProcess> {
  signal?.throwIfAborted();
  const child = spawn(process.execPath, [workerMain, ...args], {
    stdio: ['ignore', 'pipe', onStderr === undefined ? 'inherit' : 'pipe'],
  });
  if (onStderr !== undefined) {
    createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', onStderr);
  }
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  let replica: WorkerProcess['replica'];
  return new Promise((resolve, reject) => {
    const settle = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      child.off('exit', onExit);
    };
    const fail = (error: unknown) => {
      settle();
      child.kill('SIGKILL');
      reject(error);
    };
    const onAbort = () => fail(signal?.reason);
    const onExit = (code: number | null, exitSignal: NodeJS.Signals | null) =>
      fail(new Error(`the worker exited before READY (code ${code}, signal ${exitSignal})`));
    const timer = setTimeout(
      () => fail(new Error('the worker did not print READY within 30 s')),
      30_000,
    );
    signal?.addEventListener('abort', onAbort, { once: true });
    child.once('exit', onExit);
    child.once('error', fail);
    lines.on('line', (line) => {
      const ready = /^READY http=(\S+) grpc=(\S+)$/.exec(line);
      if (ready?.[1] !== undefined && ready[2] !== undefined) {
        settle();
        resolve({
          child,
          httpBaseUrl: ready[1],
          grpcAddress: ready[2],
          ...(replica === undefined ? {} : { replica }),
        });
        return;
      }
      const named = /^REPLICA (\S+) lease-ms=(\d+)$/.exec(line);
      if (named?.[1] !== undefined && named[2] !== undefined) {
        replica = { id: named[1], leaseMs: Number(named[2]) };
      }
      onOutput(line);
    });
  });
}

/**
 * SIGTERM to SIGKILL, a hang guard. A replica's close can take some 6 s on its
 * own (gRPC drain up to 1 s, pending task saves up to 5 s), plus its lease
 * keeper's and pool's queries; 30 s leaves room on a loaded two-core machine.
 */
export const STOP_GRACE_MS = 30_000;

/** How a stopped worker ended: its exit code, or the signal that ended it. */
export interface WorkerExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Still running `graceMs` after SIGTERM, so it was sent SIGKILL. */
  readonly killedAfterGrace: boolean;
}

/** For a failure message: `code 1`, `signal SIGTERM`, or `SIGKILL (still running after the grace period)`. */
export function exitText(exit: WorkerExit): string {
  if (exit.killedAfterGrace) return 'SIGKILL (still running after the grace period)';
  return exit.code !== null ? `code ${exit.code}` : `signal ${exit.signal ?? 'unknown'}`;
}

/** Sends SIGTERM and waits for the worker to exit; SIGKILL if it lingers past `graceMs`. */
export function stopWorker(child: ChildProcess, graceMs = STOP_GRACE_MS): Promise<WorkerExit> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({
      code: child.exitCode,
      signal: child.signalCode,
      killedAfterGrace: false,
    });
  }
  return new Promise((resolve) => {
    let killedAfterGrace = false;
    const timer = setTimeout(() => {
      killedAfterGrace = true;
      child.kill('SIGKILL');
    }, graceMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      // A worker that exited on its own just as the timer fired was not killed by it.
      resolve({ code, signal, killedAfterGrace: killedAfterGrace && signal === 'SIGKILL' });
    });
    child.kill('SIGTERM');
  });
}
