import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The built example worker (src/ and dist/ sit at the same depth). */
export const WORKER_MAIN = fileURLToPath(
  new URL('../../../apps/worker/dist/main.js', import.meta.url),
);

/** A worker started as a real child process on free ports. */
export interface Worker {
  readonly child: ChildProcess;
  readonly httpBaseUrl: string;
  readonly grpcAddress: string;
  /** Set once the process exited: how. */
  exit(): string | undefined;
  /** The last lines it wrote to stderr. */
  stderrTail(): string;
}

/** Starts the worker on ports 0 and resolves once it printed READY; rejects if it exits first. */
export function startWorker(main: string = WORKER_MAIN): Promise<Worker> {
  if (!existsSync(main)) {
    throw new Error(`${main} is missing: build the worker first (npx turbo run build)`);
  }
  // Tasks that keep working until the run ends (`--turns 0`), so that valid injects find running
  // tasks; slow turns keep the CPU free.
  const child = spawn(
    process.execPath,
    [main, '--port', '0', '--grpc-port', '0', '--turns', '0', '--turn-ms', '500'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let exited: string | undefined;
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  child.once('exit', (code, signal) => {
    exited = `exit code ${code}, signal ${signal}`;
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  return new Promise((resolve, reject) => {
    child.once('exit', () => reject(new Error(`the worker exited before READY: ${stderr}`)));
    lines.on('line', (line) => {
      const ready = /^READY http=(\S+) grpc=(\S+)$/.exec(line);
      if (ready?.[1] === undefined || ready[2] === undefined) return;
      resolve({
        child,
        httpBaseUrl: ready[1],
        grpcAddress: ready[2],
        exit: () => exited,
        stderrTail: () => stderr,
      });
    });
  });
}

/** Stops the worker and waits for it to exit. */
export async function stopWorker(worker: Worker): Promise<void> {
  if (worker.exit() !== undefined) return;
  const gone = new Promise<void>((resolve) => worker.child.once('exit', () => resolve()));
  worker.child.kill('SIGTERM');
  await gone;
}

/** The worker's resident set size in MiB (Linux /proc), or undefined where unknown. */
export function rssMiB(worker: Worker): number | undefined {
  const pid = worker.child.pid;
  if (pid === undefined || worker.exit() !== undefined) return undefined;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}

/** Creates running tasks through a stock JSON-RPC SendMessage, for valid injects to target. */
export async function createTasks(worker: Worker, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const response = await fetch(`${worker.httpBaseUrl}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: i + 1,
        method: 'SendMessage',
        params: {
          message: {
            messageId: `fuzz-task-${i}`,
            role: 'ROLE_USER',
            parts: [{ text: 'Make the retry test pass' }],
          },
          configuration: { returnImmediately: true },
        },
      }),
    });
    const json = (await response.json()) as { result?: { task?: { id?: string } } };
    const id = json.result?.task?.id;
    if (id === undefined) throw new Error(`SendMessage gave no task: ${JSON.stringify(json)}`);
    ids.push(id);
  }
  return ids;
}

/** Whether the worker still answers a plain request (its agent card). */
export async function stillServing(worker: Worker): Promise<boolean> {
  try {
    const response = await fetch(`${worker.httpBaseUrl}/.well-known/agent-card.json`);
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}
