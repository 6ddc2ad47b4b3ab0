import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { HeapStats } from './admin-route.js';
import { parseReadyLine, type ServerReady } from './wire.js';

/** The methods the bench server's /admin routes answer. */
export type AdminMethod = 'GET' | 'POST' | 'DELETE';

export interface ServerProcess extends ServerReady {
  /** Full GC in the server, then its heap and RSS. */
  stats(gc: boolean): Promise<HeapStats>;
  /** One call to an /admin route of the bench server; throws unless it answers 2xx. */
  admin<T>(method: AdminMethod, path: string): Promise<T>;
  stop(): void;
}

const benchServer = fileURLToPath(new URL('./bench-server.js', import.meta.url));

/** The store bench's server (`--store`, `--replicated`), as `startServer`'s `script`. */
export const STORE_BENCH_SERVER = fileURLToPath(
  new URL('./store-bench-server.js', import.meta.url),
);

/** What `startServer` may add for a diagnostic (gc-arms.ts). */
export interface ServerOptions {
  /** Node and V8 flags of the server process alone, after --expose-gc. */
  readonly nodeFlags?: readonly string[];
  /** Called with every line the server prints, from its start until it exits. */
  readonly onLine?: (line: string) => void;
}

/**
 * Starts a bench server (by default the main bench's) with --expose-gc and
 * waits for its BENCH_SERVER line.
 */
export async function startServer(
  args: readonly string[],
  script = benchServer,
  options: ServerOptions = {},
): Promise<ServerProcess> {
  const child = spawn(
    process.execPath,
    ['--expose-gc', ...(options.nodeFlags ?? []), script, ...args],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const ready = await new Promise<ServerReady>((resolve, reject) => {
    if (child.stdout === null) throw new Error('bench server has no stdout');
    const { onLine } = options;
    createInterface({ input: child.stdout }).on('line', (line) => {
      const parsed = parseReadyLine(line);
      if (parsed !== undefined) resolve(parsed);
      onLine?.(line);
    });
    child.once('exit', (code) => reject(new Error(`bench server exited early (${code})`)));
  });
  return {
    ...ready,
    async stats(gc) {
      const res = await fetch(`http://127.0.0.1:${ready.httpPort}/admin/stats${gc ? '?gc=1' : ''}`);
      return (await res.json()) as HeapStats;
    },
    async admin<T>(method: AdminMethod, path: string) {
      const res = await fetch(`http://127.0.0.1:${ready.httpPort}${path}`, { method });
      if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${await res.text()}`);
      return (await res.json()) as T;
    },
    stop: () => stopChild(child),
  };
}

export function stopChild(child: ChildProcess): void {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
}
