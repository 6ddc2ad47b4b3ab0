import type { Client, RequestOptions } from '@a2a-js/sdk/client';
import {
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransportFactory,
  RestTransportFactory,
  ServiceParameters,
  withA2AExtensions,
} from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import type { ReminderClient } from '@a2a-reminders/core';
import { TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import type { GrpcReminderClient } from '@a2a-reminders/grpc';
import { createGrpcReminderClient } from '@a2a-reminders/grpc';
import { createJsonRpcReminderClient } from '@a2a-reminders/jsonrpc';
import { createRestReminderClient } from '@a2a-reminders/rest';
import { JSONRPC_PATH, REST_PATH } from '../agent-card.js';
import type { SpawnedWorker } from './spawn-main.js';
import { exitOf, spawnMain } from './spawn-main.js';

/** The three A2A bindings the worker serves, reminders included. */
export type Binding = 'jsonrpc' | 'rest' | 'grpc';
export const BINDINGS: readonly Binding[] = ['jsonrpc', 'rest', 'grpc'];

/** The agent card's `protocolBinding` of each binding, for the SDK's client factory. */
const PROTOCOL_BINDING: Readonly<Record<Binding, string>> = {
  jsonrpc: 'JSONRPC',
  rest: 'HTTP+JSON',
  grpc: 'GRPC',
};

export interface ReplicaOptions {
  /** Pause between turns (`--turn-ms`). */
  readonly turnMs: number;
  /** Task lease length (`--lease-ms`, R53). */
  readonly leaseMs: number;
}

/** One `dist/main.js` process of a deployment, with clients for each binding. */
export interface Replica {
  /** Its `--replica-id`, e.g. `A`. */
  readonly name: string;
  readonly process: SpawnedWorker;
  readonly httpBaseUrl: string;
  /** The reminder client of each binding. */
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
  return {
    serviceParameters: ServiceParameters.create(withA2AExtensions(TASK_REMINDERS_EXTENSION_URI)),
    ...(signal === undefined ? {} : { signal }),
  };
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
  ]);
  const httpBaseUrl = worker.ready[1] ?? '';
  const grpcAddress = worker.ready[2] ?? '';
  const grpc: GrpcReminderClient = createGrpcReminderClient({ baseUrl: `http://${grpcAddress}` });
  const reminders = {
    jsonrpc: createJsonRpcReminderClient({ baseUrl: `${httpBaseUrl}${JSONRPC_PATH}` }),
    rest: createRestReminderClient({ baseUrl: `${httpBaseUrl}${REST_PATH}` }),
    grpc,
  };
  const clients = new Map<Binding, Promise<Client>>();
  const exited = exitOf(worker.child);
  let alive = true;
  void exited.then(() => {
    alive = false;
  });
  const end = async (signal: NodeJS.Signals): Promise<void> => {
    grpc.close();
    if (alive) {
      worker.child.kill(signal);
      // A replica a test froze (SIGSTOP) handles SIGTERM only once resumed.
      worker.child.kill('SIGCONT');
    }
    await exited;
  };
  return {
    name,
    process: worker,
    httpBaseUrl,
    reminders,
    a2a(binding) {
      let client = clients.get(binding);
      if (client === undefined) {
        client = sdkClient(httpBaseUrl, binding);
        clients.set(binding, client);
      }
      return client;
    },
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

/** The SDK's own client for `binding`, picked from the card the replica serves. */
async function sdkClient(httpBaseUrl: string, binding: Binding): Promise<Client> {
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [
        new JsonRpcTransportFactory(),
        new RestTransportFactory(),
        new GrpcTransportFactory(),
      ],
      preferredTransports: [PROTOCOL_BINDING[binding]],
    }),
  );
  return factory.createFromUrl(httpBaseUrl);
}
