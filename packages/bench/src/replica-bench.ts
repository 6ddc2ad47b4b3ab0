// Replica benchmark (README, Replicas; issue 10): InjectTaskReminder req/s
// with two replicas on one PostgreSQL database against one replica under the
// same closed-loop load, interleaved round by round (one, two; then two, one;
// …) so drift of the machine hits both alike, judged on the median of
// per-round ratios; with per-process CPU as the evidence for the verdict; then
// the cross-replica latency (R52) on the idle pair.
import { execFile } from 'node:child_process';
import { Agent } from 'node:http';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { TestDatabase } from '@a2a-reminders/database/testing';
import { createTestDatabase } from '@a2a-reminders/database/testing';
import { numberFlag } from './cli-args.js';
import { closedLoop } from './closed-loop.js';
import { waitForQuiet } from './cpu-gate.js';
import { cpuShares, cpuSnapshot } from './cpu-shares.js';
import { crossReplicaLatency } from './cross-replica-latency.js';
import { httpArmCall } from './http-arm-calls.js';
import { InjectIds } from './inject-request.js';
import { type ArmSlice, printReplicaReport, type ReplicaArm } from './replica-report.js';
import { type ServerProcess, STORE_BENCH_SERVER, startServer } from './server-process.js';

const argv = process.argv.slice(2);
const rounds = numberFlag(argv, '--rounds', 5);
const sliceMs = numberFlag(argv, '--slice-ms', 5000);
const warmupMs = numberFlag(argv, '--warmup-ms', 1000);
/** In flight at once, in all: both arms get the same load, spread over the replicas or not. */
const concurrency = numberFlag(argv, '--concurrency', 32);
const tasksPerReplica = numberFlag(argv, '--tasks', 500);
const latencySamples = numberFlag(argv, '--latency-samples', 500);

/**
 * The SDK's task table, created once before any replica starts (replicas
 * share it): the SDK ships its migrations only in its `a2a-db` CLI.
 */
async function createSdkTaskTable(url: string): Promise<void> {
  const bin = fileURLToPath(new URL('./cli/a2a_db.js', import.meta.resolve('@a2a-js/sdk')));
  await promisify(execFile)(process.execPath, [bin, 'upgrade', '--store', 'tasks', '--url', url]);
}

async function seededTasks(server: ServerProcess): Promise<string[]> {
  const res = await fetch(`http://127.0.0.1:${server.httpPort}/admin/tasks`);
  return ((await res.json()) as { ids: string[] }).ids;
}

let database: TestDatabase | undefined;
const servers: ServerProcess[] = [];
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
try {
  database = await createTestDatabase('postgres');
  await createSdkTaskTable(database.url);
  const dbName = new URL(database.url).pathname.slice(1);
  const replicaArgs = ['--store', database.url, '--replicated', '--turn-tasks', '0'];
  // Each replica seeds its own WORKING tasks, so it runs their executions.
  servers.push(
    ...(await Promise.all(
      [0, 1].map(() =>
        startServer([...replicaArgs, '--tasks', String(tasksPerReplica)], STORE_BENCH_SERVER),
      ),
    )),
  );
  const [a, b] = servers;
  if (a === undefined || b === undefined) throw new Error('missing replica');
  const tasksOfA = await seededTasks(a);
  const allTasks = [...tasksOfA, ...(await seededTasks(b))];
  const pids = [a.pid, b.pid];

  // The main bench's JSON-RPC inject call, each displacing its task's previous reminder.
  const ids = new InjectIds('replica-bench');
  const injectOn = (port: number, taskIds: readonly string[]) =>
    httpArmCall('jsonrpc-inject', { agent, port, taskIds, ids, followUps: [] });
  // One replica: A, on the tasks it runs (B stays up, idle but LISTENing).
  const one = injectOn(a.httpPort, tasksOfA);
  // Two replicas: round-robin per request, any task; half the injects reach the
  // replica that does not run the task, whose events then cross over (R52).
  const two = [injectOn(a.httpPort, allTasks), injectOn(b.httpPort, allTasks)];
  let next = 0;
  const calls: Record<ReplicaArm, () => Promise<void>> = {
    one,
    two: () => (two[next++ % 2] as () => Promise<void>)(),
  };

  const slices: Record<ReplicaArm, ArmSlice[]> = { one: [], two: [] };
  for (let round = 0; round < rounds; round += 1) {
    const order: ReplicaArm[] = round % 2 === 0 ? ['one', 'two'] : ['two', 'one'];
    for (const arm of order) {
      await closedLoop(calls[arm], concurrency, warmupMs);
      // The main bench's contention gate, bounded (2 s): other work shows in the report.
      await waitForQuiet(pids, 15, 4);
      const from = await cpuSnapshot(pids, dbName);
      const loop = await closedLoop(calls[arm], concurrency, sliceMs);
      const cpu = cpuShares(from, await cpuSnapshot(pids, dbName), pids);
      slices[arm].push({ ...loop, cpu });
      console.error(
        `round ${round + 1}/${rounds} ${arm}: ${loop.reqPerSec.toFixed(0)} req/s, machine ${cpu.machine.toFixed(0)} %`,
      );
    }
  }

  const runner = tasksOfA[0];
  if (runner === undefined) throw new Error('replica A seeded no task');
  console.error(`latency: ${latencySamples} samples each way`);
  const latency = await crossReplicaLatency({
    runnerPort: a.httpPort,
    otherPort: b.httpPort,
    taskId: runner,
    samples: latencySamples,
  });

  printReplicaReport({
    settings:
      `${rounds} rounds × (${warmupMs} ms warm-up + ${sliceMs} ms), closed loop, concurrency ${concurrency} in all, ` +
      `${tasksPerReplica} WORKING tasks per replica, ${availableParallelism()} CPUs`,
    cores: availableParallelism(),
    slices,
    latency,
  });
} finally {
  agent.destroy();
  for (const server of servers) server.stop();
  await database?.drop().catch(() => {});
}
process.exit(0);
