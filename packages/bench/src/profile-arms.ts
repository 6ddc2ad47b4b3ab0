// Where an arm's server CPU goes (README, Where the time goes):
// `npm run bench:profile -w @a2a-reminders/bench -- --arms jsonrpc-get,jsonrpc-inject-plain`.
// The bench server runs in this process; each arm's load runs in its own process, as in the
// benchmark, and V8's sampling profiler records only the measured window. Prints, per package
// and per function, the self time per request of each arm, largest difference to the first
// arm first.
// Flags: --arms a,b,… --warmup-ms 2000 --slice-ms 5000 --top 30 --out <dir> (writes one
// .cpuprofile per arm, for a flame graph in Chrome DevTools or speedscope). --alloc: V8's
// sampling heap profiler instead, freed objects included: bytes allocated per request, per
// function and per package (`.heapprofile` files with --out).
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { ARMS, type ArmName } from './arms.js';
import { createBenchStack } from './bench-stack.js';
import { armsFlag, numberFlag, stringFlag } from './cli-args.js';
import { LoadProcess } from './load-process.js';
import {
  allocatedByFunction,
  type CpuProfile,
  type HeapSamplingNode,
  packageOf,
  selfTimeByFunction,
} from './profile-table.js';
import { seedTasks } from './seed-tasks.js';
import { serveBenchStack } from './serve-stack.js';
import type { AdminMethod } from './server-process.js';
import { settleDelayedEvents } from './settle-delayed.js';
import { BENCH_MAX_LIVE_REMINDERS } from './wire.js';

const argv = process.argv.slice(2);
const arms = armsFlag(argv) ?? (['jsonrpc-get', 'jsonrpc-inject'] as const);
const warmupMs = numberFlag(argv, '--warmup-ms', 2000);
const sliceMs = numberFlag(argv, '--slice-ms', 5000);
const top = numberFlag(argv, '--top', 30);
const out = stringFlag(argv, '--out');
const alloc = argv.includes('--alloc');

const stack = createBenchStack({
  retentionMs: 2000,
  maxLiveRemindersPerTask: BENCH_MAX_LIVE_REMINDERS,
});
// Servers and load processes stop with this process, error or not.
process.on('uncaughtException', (error) => {
  console.error(error);
  LoadProcess.stopAll();
  process.exit(1);
});
process.on('unhandledRejection', (error) => {
  console.error(error);
  LoadProcess.stopAll();
  process.exit(1);
});
const served = await serveBenchStack(stack);
const { httpPort, grpcPort } = served;
stack.seededTaskIds.push(...(await seedTasks(stack.requestHandler, 1000)));

const admin = (method: AdminMethod, path: string) =>
  fetch(`http://127.0.0.1:${httpPort}${path}`, { method });

const session = new Session();
session.connect();
await session.post(alloc ? 'HeapProfiler.enable' : 'Profiler.enable');
if (!alloc) await session.post('Profiler.setSamplingInterval', { interval: 50 });

/** Starts the profiler of this run's mode; the returned function stops it and returns its profile. */
async function startProfiler(): Promise<() => Promise<unknown>> {
  if (!alloc) {
    await session.post('Profiler.start');
    return async () => (await session.post('Profiler.stop')).profile;
  }
  // Freed objects included: a request's garbage is most of what it allocates.
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 256,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  return async () => (await session.post('HeapProfiler.stopSampling')).profile;
}

const perArm: { arm: ArmName; requests: number; self: Map<string, number> }[] = [];
for (const arm of arms) {
  const kind = ARMS[arm].kind;
  // As in the benchmark (run-bench.ts): fresh follow-up tasks, plain reminders ended first.
  if (kind === 'send-reminder') await admin('POST', '/admin/followup-tasks');
  const load = await LoadProcess.start(arm, httpPort, grpcPort);
  let result: Awaited<ReturnType<LoadProcess['run']>>;
  let profile: unknown;
  try {
    await load.run(warmupMs);
    if (kind === 'inject-plain') await admin('POST', '/admin/end-plain-reminders');
    // R57: the warm-up's delayed displacement events go out before the window.
    await settleDelayedEvents((path) => admin('POST', path));
    const stop = await startProfiler();
    result = await load.run(sliceMs);
    // ... and the window's own go out inside it.
    await settleDelayedEvents((path) => admin('POST', path));
    profile = await stop();
  } finally {
    load.stop();
  }
  // As in the benchmark: no arm after this one runs on the pool's follow-ups.
  if (kind === 'send-reminder') await admin('DELETE', '/admin/followup-tasks');
  if (out !== undefined) {
    mkdirSync(out, { recursive: true });
    writeFileSync(
      join(out, `${arm}.${alloc ? 'heapprofile' : 'cpuprofile'}`),
      JSON.stringify(profile),
    );
  }
  perArm.push({
    arm,
    requests: result.requests,
    self: alloc
      ? allocatedByFunction((profile as { head: HeapSamplingNode }).head)
      : selfTimeByFunction(profile as CpuProfile),
  });
  console.log(`${ARMS[arm].label}: ${result.requests} requests profiled`);
}

const perRequest = (self: Map<string, number>, requests: number) =>
  new Map([...self].map(([k, v]) => [k, v / Math.max(1, requests)]));
const byFunction = perArm.map((a) => perRequest(a.self, a.requests));
const byPackage = byFunction.map((self) => {
  const sums = new Map<string, number>();
  for (const [k, v] of self) {
    const pkg = packageOf(k);
    sums.set(pkg, (sums.get(pkg) ?? 0) + v);
  }
  return sums;
});
const unit = alloc
  ? 'bytes allocated per request (sampled, freed objects included)'
  : 'self time per request, µs (profiler on; compare arms, not absolute figures)';
printTable(`${unit}, by package`, 'package', byPackage, top);
printTable(`${unit}, by function`, 'function', byFunction, top);

/**
 * One row per key, the arms side by side, largest difference to the first
 * arm first; with the total of all but idle on top.
 */
function printTable(
  title: string,
  column: string,
  tables: readonly Map<string, number>[],
  rowsShown: number,
) {
  const value = (t: Map<string, number>, k: string) => t.get(k) ?? 0;
  const keys = [...new Set(tables.flatMap((t) => [...t.keys()]))].filter((k) => k !== '(idle)');
  const rows = keys
    .map((k) => ({ k, values: tables.map((t) => value(t, k)) }))
    .sort(
      (x, y) =>
        Math.max(...y.values) - (y.values[0] ?? 0) - (Math.max(...x.values) - (x.values[0] ?? 0)) ||
        (y.values[0] ?? 0) - (x.values[0] ?? 0),
    );
  const cell = (v: number) => v.toFixed(alloc ? 0 : 1).padStart(9);
  const total = tables.map((t) => keys.reduce((sum, k) => sum + value(t, k), 0));
  console.log(`\n${title}\n${perArm.map((a) => a.arm.padStart(9).slice(-9)).join(' ')}  ${column}`);
  console.log(`${total.map(cell).join(' ')}  all but idle`);
  for (const row of rows.slice(0, rowsShown))
    console.log(`${row.values.map(cell).join(' ')}  ${row.k}`);
}

served.close();
process.exit(0);
