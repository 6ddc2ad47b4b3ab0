import type { Client, RequestOptions } from '@a2a-js/sdk/client';
import type { AgentConnection, Binding } from '@a2a-reminders/client';
import { BINDINGS, connectToAgent, reminderRequestOptions } from '@a2a-reminders/client';
import type { ReminderClient } from '@a2a-reminders/core';
import type { SpawnedWorker } from './spawn-main.js';
import { exitOf, spawnMain } from './spawn-main.js';

/** The three A2A bindings the worker serves, reminders included. */
export type { Binding };
export { BINDINGS };

export interface ReplicaOptions {
  /** Pause between turns (`--turn-ms`). */
  readonly turnMs: number;
  /** Task lease length (`--lease-ms`, R53). */
  readonly leaseMs: number;
  /** More flags for every replica, e.g. `--delegate-tests <url>`. */
  readonly args?: readonly string[];
}

/** One `dist/main.js` process of a deployment, with clients for each binding. */
export interface Replica {
  /** Its `--replica-id`, e.g. `A`. */
  readonly name: string;
  readonly process: SpawnedWorker;
  readonly httpBaseUrl: string;
  /** The reminder client of each binding, on the interface the replica's card lists. */
  readonly reminders: Readonly<Record<Binding, ReminderClient>>;
  /** The stock SDK client over `binding`, built from the replica's agent card. */
  a2a(binding: Binding): Promise<Client>;
  /** SIGKILL: no shutdown code runs. Resolves once the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM, the way a supervisor stops it; SIGKILL if it does not exit. */
  stop(): Promise<void>;
}

/** The SDK client options every call here uses: the reminders extension activated. */
export function a2aCallOptions(signal?: AbortSignal): RequestOptions {
  return reminderRequestOptions({}, signal);
}

/**
 * Starts one worker process per name on one PostgreSQL database, all at
 * once: each migrates the (possibly fresh) database itself, as replicas
 * started together by a supervisor would. Tasks run long (`--turns 1000`).
 */
export async function startReplicas(
  url: string,
  names: readonly string[],
  options: ReplicaOptions,
): Promise<Replica[]> {
  const started = await Promise.allSettled(names.map((name) => startReplica(url, name, options)));
  const replicas = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s) => s.status === 'rejected');
  if (failed !== undefined) {
    await stopAll(replicas);
    throw failed.reason;
  }
  return replicas;
}

/** Stops every replica still running (test teardown). */
export async function stopAll(replicas: readonly Replica[]): Promise<void> {
  await Promise.all(replicas.map((r) => r.stop()));
}

async function startReplica(url: string, name: string, options: ReplicaOptions): Promise<Replica> {
  const worker = await spawnMain([
    '--store',
    url,
    '--port',
    '0',
    '--grpc-port',
    '0',
    '--turns',
    '1000',
    '--turn-ms',
    String(options.turnMs),
    '--lease-ms',
    String(options.leaseMs),
    '--replica-id',
    name,
    ...(options.args ?? []),
  ]);
  const httpBaseUrl = worker.ready[1] ?? '';
  const exited = exitOf(worker.child);
  let alive = true;
  void exited.then(() => {
    alive = false;
  });
  // Every binding's clients, from the card the replica serves, as a caller would connect.
  const connected = await Promise.allSettled(
    BINDINGS.map((binding) => connectToAgent(httpBaseUrl, { binding })),
  );
  const connections = connected.flatMap((c) => (c.status === 'fulfilled' ? [c.value] : []));
  const end = async (signal: NodeJS.Signals): Promise<void> => {
    for (const connection of connections) connection.close();
    if (alive) {
      worker.child.kill(signal);
      // A replica a test froze (SIGSTOP) handles SIGTERM only once resumed.
      worker.child.kill('SIGCONT');
    }
    await exited;
  };
  const failed = connected.find((c) => c.status === 'rejected');
  if (failed !== undefined) {
    await end('SIGKILL');
    throw failed.reason;
  }
  const connectionOf = (binding: Binding): AgentConnection => {
    const found = connections.find((c) => c.binding === binding);
    if (found === undefined) throw new Error(`replica ${name} has no ${binding} connection`);
    return found;
  };
  return {
    name,
    process: worker,
    httpBaseUrl,
    reminders: {
      jsonrpc: connectionOf('jsonrpc').reminders,
      rest: connectionOf('rest').reminders,
      grpc: connectionOf('grpc').reminders,
    },
    a2a: async (binding) => connectionOf(binding).client,
    kill: () => end('SIGKILL'),
    async stop() {
      const timer = setTimeout(() => worker.child.kill('SIGKILL'), 15_000);
      try {
        await end('SIGTERM');
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
