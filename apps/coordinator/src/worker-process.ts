import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/** A worker started as a child process, once it printed its READY line. */
export interface WorkerProcess {
  readonly child: ChildProcess;
  readonly httpBaseUrl: string;
  readonly grpcAddress: string;
}

/** Starts the worker and resolves on its READY line. */
export async function spawnWorker(
  workerMain: string,
  args: readonly string[],
  onOutput: (line: string) => void = () => {},
): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [workerMain, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('the worker did not print READY within 30 s'));
    }, 30_000);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the worker exited before READY (code ${code}, signal ${signal})`));
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    lines.on('line', (line) => {
      const ready = /^READY http=(\S+) grpc=(\S+)$/.exec(line);
      if (ready?.[1] !== undefined && ready[2] !== undefined) {
        clearTimeout(timer);
        resolve({ child, httpBaseUrl: ready[1], grpcAddress: ready[2] });
      } else {
        onOutput(line);
      }
    });
  });
}

/** Sends SIGTERM and waits for the exit code; SIGKILL if it lingers. */
export function stopWorker(child: ChildProcess, graceMs = 5000): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
    child.kill('SIGTERM');
  });
}
