import type { TaskReminderEvent } from '@a2a-reminders/proto';
import { TaskReminderEventBatchSchema } from '@a2a-reminders/proto';
import type { PostgresCluster, TcpProxy } from '@a2a-reminders/test-support';
import { startPostgresCluster, startTcpProxy } from '@a2a-reminders/test-support';
import { fromBinary } from '@bufbuild/protobuf';
import pg from 'pg';
import type { Deployment, LeaseRow, OpenTask } from './deployment.js';
import { EVENT_LOG_SQL, OPEN_STATES } from './deployment.js';
import type { Replica } from './worker-process.js';
import { startReplica } from './worker-process.js';

export interface PostgresDeploymentOptions {
  readonly replicaNames: readonly string[];
  /** `--lease-ms` (R53). */
  readonly leaseMs: number;
  /** `--turn-ms`. */
  readonly turnMs: number;
  readonly workerMain?: string;
  readonly log: (line: string) => void;
}

/** Three replicas behind a proxy on a cluster of the run's own, and what faults need of them. */
export interface PostgresDeployment extends Deployment {
  readonly store: 'postgres';
  readonly cluster: PostgresCluster;
  readonly proxy: TcpProxy;
  readonly leaseMs: number;
}

const DATABASE = 'chaos';
/** Our own reads go straight to the cluster, never through the proxy the faults break. */
const APPLICATION_NAME = 'a2a-reminders chaos';
/** A plain read's deadline: a hang guard. */
const READ_DEADLINE_MS = 30_000;

/**
 * Starts a PostgreSQL cluster of its own (never the shared server: the
 * faults restart it and end its backends), a TCP proxy in front of it, and
 * the replicas on the proxy's address, all at once on the fresh database
 * (each migrates it, as replicas a supervisor starts together would).
 */
export async function startPostgresDeployment(
  options: PostgresDeploymentOptions,
): Promise<PostgresDeployment> {
  // The cluster's defaults acknowledge a commit only once its WAL is written, so a restart
  // (immediate included) loses no acknowledged reminder that a worker could have kept.
  const cluster = await startPostgresCluster();
  let proxy: TcpProxy | undefined;
  const replicas: Replica[] = [];
  try {
    await cluster.createDatabase(DATABASE);
    proxy = await startTcpProxy({ targetPort: cluster.port });
    const storeUrl = proxy.url(DATABASE);
    const argsOf = (name: string) => [
      '--store',
      storeUrl,
      '--replica-id',
      name,
      '--lease-ms',
      String(options.leaseMs),
      '--turn-ms',
      String(options.turnMs),
      // As many turns as the worker allows: a task runs until it is cancelled.
      '--turns',
      '1000',
    ];
    const everStarted: Replica[] = [];
    const start = async (name: string) => {
      const replica = await startReplica(name, argsOf(name), {
        ...(options.workerMain === undefined ? {} : { main: options.workerMain }),
      });
      everStarted.push(replica);
      return replica;
    };
    const started = await Promise.allSettled(options.replicaNames.map(start));
    for (const s of started) if (s.status === 'fulfilled') replicas.push(s.value);
    const failed = started.find((s) => s.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    const directUrl = cluster.url(DATABASE);
    const read = <T>(use: (client: pg.Client) => Promise<T>) => withClient(directUrl, use);
    const readyProxy = proxy;
    return {
      store: 'postgres',
      cluster,
      proxy: readyProxy,
      leaseMs: options.leaseMs,
      replicas,
      started: everStarted,
      // R72: the grace (one lease by default), then the lease, then a reap interval (a quarter).
      stuckBoundMs: 2 * options.leaseMs + Math.ceil(options.leaseMs / 4),
      async ensureAlive() {
        const notes: string[] = [];
        for (let i = 0; i < replicas.length; i += 1) {
          const replica = replicas[i] as Replica;
          if (replica.alive()) continue;
          notes.push(`replica ${replica.name} had exited (${replica.process.exit()}); restarted`);
          options.log(notes.at(-1) ?? '');
          await replica.stop();
          replicas[i] = await start(replica.name);
        }
        return notes;
      },
      openTasks: () =>
        read(async (client) => {
          const { rows } = await client.query<{
            id: string;
            status_state: string;
            status_last_updated: string;
          }>(
            'select id, status_state, status_last_updated from tasks where status_state = any($1)',
            [[...OPEN_STATES]],
          );
          return rows.map(
            (r): OpenTask => ({
              id: r.id,
              state: r.status_state,
              updatedMs: Number(r.status_last_updated),
            }),
          );
        }),
      leases: () =>
        read(async (client) => {
          const { rows } = await client.query<{
            task_id: string;
            holder: string;
            expires_in_ms: string;
          }>(
            `select task_id, holder,
               expires_ms - (extract(epoch from clock_timestamp()) * 1000)::bigint as expires_in_ms
             from a2a_task_leases`,
          );
          return rows.map(
            (r): LeaseRow => ({
              taskId: r.task_id,
              holder: r.holder,
              expiresInMs: Number(r.expires_in_ms),
            }),
          );
        }),
      eventLog: (taskId) =>
        read(async (client) => {
          const { rows } = await client.query<{ seq: string; batch: Uint8Array }>(EVENT_LOG_SQL, [
            taskId,
          ]);
          return rows.flatMap(
            (r): TaskReminderEvent[] => fromBinary(TaskReminderEventBatchSchema, r.batch).events,
          );
        }),
      async close() {
        await Promise.allSettled(replicas.map((r) => r.stop()));
        await readyProxy.close();
        await cluster.destroy();
      },
    };
  } catch (error) {
    await Promise.allSettled(replicas.map((r) => r.stop()));
    await proxy?.close();
    await cluster.destroy();
    throw error;
  }
}

/** One plain connection per read: faults end connections, a fresh one is always clean. */
async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({
    connectionString: url,
    application_name: APPLICATION_NAME,
    connectionTimeoutMillis: READ_DEADLINE_MS,
    query_timeout: READ_DEADLINE_MS,
  });
  // A server ended under us emits after the call failed anyway.
  client.on('error', () => {});
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end().catch(() => {});
  }
}
