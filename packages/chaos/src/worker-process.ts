import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { AgentConnection, Binding } from '@a2a-reminders/client';
import { BINDINGS, connectToAgent } from '@a2a-reminders/client';
import { atExit } from './exit-hooks.js';

/** The built example worker (src/ and dist/ sit at the same depth). */
export const WORKER_MAIN = fileURLToPath(
  new URL('../../../apps/worker/dist/main.js', import.meta.url),
);

/** Most lines of a worker's output kept (a replica cut off from its database logs a lot). */
const KEPT_LINES = 5_000;
/** How long a clean stop may take before SIGKILL: the worker's own stop bound (R73) and more. */
const STOP_GRACE_MS = 30_000;

/** One `dist/main.js` process, started on free ports. */
export interface WorkerProcess {
  readonly child: ChildProcess;
  readonly httpBaseUrl: string;
  readonly grpcAddress: string;
  /** Every stderr line so far, numbered from the start (the oldest dropped past a bound). */
  readonly stderr: LineLog;
  readonly stdout: LineLog;
  /** Undefined while it runs; how it ended once it did. */
  exit(): string | undefined;
  /** Whether it ended by itself with exit code 0 (a clean stop, R73); false while it runs. */
  exitedCleanly(): boolean;
  /** SIGTERM (R73), SIGKILL if it has not exited after a grace. Resolves once it is gone. */
  stop(): Promise<void>;
}

/** Lines a process printed, read as they come so a chatty worker never blocks on a full pipe. */
export class LineLog {
  readonly #lines: string[] = [];
  #dropped = 0;

  push(line: string): void {
    this.#lines.push(line);
    if (this.#lines.length > KEPT_LINES) {
      this.#lines.shift();
      this.#dropped += 1;
    }
  }

  /** How many lines were printed so far: a mark to read from later. */
  mark(): number {
    return this.#dropped + this.#lines.length;
  }

  /** The lines printed since `mark` (those still kept). */
  since(mark: number): string[] {
    return this.#lines.slice(Math.max(0, mark - this.#dropped));
  }

  all(): readonly string[] {
    return this.#lines;
  }
}

/**
 * Starts the worker with `args` (ports 0 added) and resolves on its READY
 * line; rejects if it exits first or is not ready by the deadline (a hang
 * guard: a worker migrating a fresh database on a busy machine is slow).
 */
export function spawnWorker(
  args: readonly string[],
  options: { readonly cwd?: string; readonly main?: string; readonly deadlineMs?: number } = {},
): Promise<WorkerProcess> {
  const main = options.main ?? WORKER_MAIN;
  if (!existsSync(main)) {
    return Promise.reject(
      new Error(`${main} is missing: build the worker first (npx turbo run build)`),
    );
  }
  const child = spawn(process.execPath, [main, '--port', '0', '--grpc-port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  });
  const forget = atExit(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const stdout = new LineLog();
  const stderr = new LineLog();
  let onLine: (line: string) => void = () => {};
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (l) => {
    stdout.push(l);
    onLine(l);
  });
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', (l) =>
    stderr.push(l),
  );
  let exited: string | undefined;
  let clean = false;
  const gone = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = `exit code ${code}, signal ${signal}`;
      clean = code === 0 && signal === null;
      forget();
      resolve();
    });
  });
  const stop = async (): Promise<void> => {
    if (exited !== undefined) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    try {
      await gone;
    } finally {
      clearTimeout(timer);
    }
  };
  return new Promise((resolve, reject) => {
    const deadline = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the worker was not READY in time; stderr:\n${tail(stderr)}`));
    }, options.deadlineMs ?? 120_000);
    onLine = (line) => {
      const ready = /^READY http=(\S+) grpc=(\S+)$/.exec(line);
      if (ready?.[1] === undefined || ready[2] === undefined) return;
      clearTimeout(deadline);
      resolve({
        child,
        httpBaseUrl: ready[1],
        grpcAddress: ready[2],
        stderr,
        stdout,
        exit: () => exited,
        exitedCleanly: () => clean,
        stop,
      });
    };
    child.once('exit', () => {
      clearTimeout(deadline);
      reject(new Error(`the worker exited before READY (${exited}); stderr:\n${tail(stderr)}`));
    });
  });
}

function tail(log: LineLog): string {
  return log.all().slice(-30).join('\n');
}

/** A worker process and a connection per binding to it, the way a caller connects (its card). */
export interface Replica {
  /** `A`, `B`, `C` on PostgreSQL (`--replica-id`); `S` for the SQLite worker. */
  readonly name: string;
  readonly process: WorkerProcess;
  readonly connections: Readonly<Record<Binding, AgentConnection>>;
  alive(): boolean;
  /** Closes the clients (gRPC channels) and stops the process. */
  stop(): Promise<void>;
}

/** Starts a worker and connects to it over every binding. */
export async function startReplica(
  name: string,
  args: readonly string[],
  options: { readonly cwd?: string; readonly main?: string } = {},
): Promise<Replica> {
  const worker = await spawnWorker(args, options);
  const connected = await Promise.allSettled(
    BINDINGS.map((binding) => connectToAgent(worker.httpBaseUrl, { binding })),
  );
  const connections = connected.flatMap((c) => (c.status === 'fulfilled' ? [c.value] : []));
  const failed = connected.find((c) => c.status === 'rejected');
  if (failed !== undefined) {
    for (const c of connections) c.close();
    await worker.stop();
    throw failed.reason;
  }
  const byBinding = Object.fromEntries(connections.map((c) => [c.binding, c])) as Record<
    Binding,
    AgentConnection
  >;
  return {
    name,
    process: worker,
    connections: byBinding,
    alive: () => worker.exit() === undefined,
    async stop() {
      for (const c of connections) c.close();
      await worker.stop();
    },
  };
}
