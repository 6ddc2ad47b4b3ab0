// Where an arm's server CPU goes (README, Where the time goes):
// `npm run bench:profile -w @a2a-reminders/bench -- --arms jsonrpc-get,jsonrpc-inject-plain`.
// The bench server runs in this process; each arm's load runs in its own process, as in the
// benchmark, and V8's sampling profiler records only the measured window. Prints, per function,
// the self time per request of each arm and the difference to the first arm, largest first.
// Flags: --arms a,b,… --warmup-ms 2000 --slice-ms 5000 --top 30 --out <dir> (writes one
// .cpuprofile per arm, for a flame graph in Chrome DevTools or speedscope).
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { ARMS, type ArmName } from './arms.js';
import { createBenchStack } from './bench-stack.js';
import { armsFlag, numberFlag, stringFlag } from './cli-args.js';
import { LoadProcess } from './load-process.js';
import { type CpuProfile, selfTimeByFunction } from './profile-table.js';
import { seedTasks } from './seed-tasks.js';
import { serveBenchStack } from './serve-stack.js';
import { settleDelayedEvents } from './settle-delayed.js';
import { BENCH_MAX_LIVE_REMINDERS } from './wire.js';

const argv = process.argv.slice(2);
const arms = armsFlag(argv) ?? (['jsonrpc-get', 'jsonrpc-inject'] as const);
const warmupMs = numberFlag(argv, '--warmup-ms', 2000);
const sliceMs = numberFlag(argv, '--slice-ms', 5000);
const top = numberFlag(argv, '--top', 30);
const out = stringFlag(argv, '--out');

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

const admin = (method: 'GET' | 'POST', path: string) =>
  fetch(`http://127.0.0.1:${httpPort}${path}`, { method });

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 50 });

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
    await session.post('Profiler.start');
    result = await load.run(sliceMs);
    // ... and the window's own go out inside it.
    await settleDelayedEvents((path) => admin('POST', path));
    profile = (await session.post('Profiler.stop')).profile;
  } finally {
    load.stop();
  }
  if (out !== undefined) {
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, `${arm}.cpuprofile`), JSON.stringify(profile));
  }
  perArm.push({
    arm,
    requests: result.requests,
    self: selfTimeByFunction(profile as CpuProfile),
  });
  console.log(`${ARMS[arm].label}: ${result.requests} requests profiled`);
}

const us = (arm: (typeof perArm)[number], key: string) =>
  (arm.self.get(key) ?? 0) / Math.max(1, arm.requests);
const keys = new Set(perArm.flatMap((a) => [...a.self.keys()]));
const busy = perArm.map((a) =>
  [...keys].filter((k) => k !== '(idle)').reduce((sum, k) => sum + us(a, k), 0),
);
const [first] = perArm;
if (first !== undefined) {
  const rows = [...keys]
    .filter((k) => k !== '(idle)')
    .map((k) => ({ k, values: perArm.map((a) => us(a, k)) }))
    .sort(
      (x, y) =>
        Math.max(...y.values) - (y.values[0] ?? 0) - (Math.max(...x.values) - (x.values[0] ?? 0)) ||
        (y.values[0] ?? 0) - (x.values[0] ?? 0),
    );
  const cell = (v: number) => v.toFixed(1).padStart(9);
  console.log(
    `\nself time per request, µs (profiler on; compare arms, not absolute figures)\n${perArm
      .map((a) => a.arm.padStart(9).slice(-9))
      .join(' ')}  function`,
  );
  console.log(`${busy.map(cell).join(' ')}  all but idle`);
  for (const row of rows.slice(0, top)) console.log(`${row.values.map(cell).join(' ')}  ${row.k}`);
}

served.close();
process.exit(0);
