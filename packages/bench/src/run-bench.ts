// The benchmark (README, What it measures): `npm run bench -w @a2a-reminders/bench [-- flags]`.
// Flags: --rounds 3 --warmup-ms 2000 --slice-ms 10000 --max-reruns 2 --mem-tasks 200
// --mem-per-task 50 --arms a,b (a subset of arm names, for debugging) --inject-without-dedupe.
import { ARMS, type ArmName, isArmName, roundOrder } from './arms.js';
import { numberFlag, stringFlag } from './cli-args.js';
import { cpuMark, foreignPct, waitForQuiet } from './cpu-gate.js';
import { LoadProcess } from './load-process.js';
import { memoryPhase } from './memory-phase.js';
import { processCpuUs } from './proc-cpu.js';
import { armTable, memoryLines, ratioTable } from './report.js';
import { type ServerProcess, startServer } from './server-process.js';
import type { Results, SliceResult } from './slice.js';
import { LOAD_CLIENTS } from './wire.js';

const argv = process.argv.slice(2);
const rounds = numberFlag(argv, '--rounds', 3);
const warmupMs = numberFlag(argv, '--warmup-ms', 2000);
const sliceMs = numberFlag(argv, '--slice-ms', 10_000);
const memTasks = numberFlag(argv, '--mem-tasks', 200);
const memPerTask = numberFlag(argv, '--mem-per-task', 50);
const maxReruns = numberFlag(argv, '--max-reruns', 2);
const retentionMs = 2000;
const QUIET_PCT = 15;
// Diagnostic: injects without a dedupe key, to split off the cost of the DISPLACED
// event each displacing inject publishes. Short runs only (live reminders grow).
const loadArgs = argv.includes('--inject-without-dedupe') ? ['--no-dedupe'] : [];
const only = stringFlag(argv, '--arms')?.split(',').filter(isArmName);

/** One measured slice: warm-up (discarded), full GC, then the slice, with server CPU from /proc. */
async function measure(server: ServerProcess, arm: ArmName, round: number, attempts: number) {
  const load = await LoadProcess.start(arm, server.httpPort, server.grpcPort, loadArgs);
  try {
    if (warmupMs > 0) await load.run(warmupMs);
    await server.stats(true); // full GC before every measured slice (README, What it measures)
    const pids = [server.pid, load.pid];
    await waitForQuiet(pids, QUIET_PCT);
    const cpu0 = await processCpuUs(server.pid);
    const mark0 = await cpuMark(pids);
    const result = await load.run(sliceMs);
    const cpuUs = (await processCpuUs(server.pid)) - cpu0;
    const mark1 = await cpuMark(pids);
    const slice: SliceResult = {
      ...result,
      arm,
      round,
      serverCpuUsPerReq: result.requests === 0 ? Number.NaN : cpuUs / result.requests,
      serverCpuPct: (100 * cpuUs) / ((mark1.wallMs - mark0.wallMs) * 1000),
      foreignCpuPct: foreignPct(mark0, mark1),
      attempts,
    };
    return slice;
  } finally {
    load.stop();
  }
}

/**
 * README, What it measures contention gate: a slice during which other processes used
 * more than QUIET_PCT % of a core is re-run (at most maxReruns times); the
 * least disturbed one is kept.
 */
async function slice(server: ServerProcess, arm: ArmName, round: number): Promise<SliceResult> {
  let best = await measure(server, arm, round, 1);
  for (let i = 0; i < maxReruns && best.foreignCpuPct > QUIET_PCT; i += 1) {
    const again = await measure(server, arm, round, i + 2);
    best = { ...(again.foreignCpuPct < best.foreignCpuPct ? again : best), attempts: i + 2 };
  }
  return best;
}

async function main(server: ServerProcess): Promise<number> {
  console.log(
    `bench server pid ${server.pid}, http :${server.httpPort}, grpc :${server.grpcPort}, ${server.tasks} WORKING tasks seeded`,
  );
  console.log(`load: closed loop, concurrency 16; ${LOAD_CLIENTS}`);
  console.log(
    `${rounds} rounds × (${warmupMs} ms warm-up + ${sliceMs} ms slice) per arm; Node ${process.version}\n`,
  );
  if (loadArgs.length > 0)
    console.log('diagnostic: injects carry no dedupe key (nothing displaced)\n');
  const seeded = await server.stats(true);
  const results: Results = new Map();
  let errors = 0;
  for (let round = 0; round < rounds; round += 1) {
    for (const arm of roundOrder(round).filter((a) => only === undefined || only.includes(a))) {
      const s = await slice(server, arm, round);
      results.set(arm, [...(results.get(arm) ?? []), s]);
      errors += s.errors;
      const errorText = s.errors > 0 ? `  ERRORS ${s.errors}: ${s.errorSamples.join(' | ')}` : '';
      console.log(
        `round ${round + 1} ${ARMS[arm].label.padEnd(30)} ${s.reqPerSec.toFixed(0).padStart(6)} req/s  ` +
          `p50 ${s.p50Ms.toFixed(2)} ms  p99 ${s.p99Ms.toFixed(1)} ms  ` +
          `server ${s.serverCpuUsPerReq.toFixed(0)} µs/req (${s.serverCpuPct.toFixed(0)} %)  ` +
          `others ${s.foreignCpuPct.toFixed(0)} %${s.attempts > 1 ? ` (best of ${s.attempts})` : ''}${errorText}`,
      );
    }
  }
  const afterArms = await server.stats(true);
  console.log('\nPer arm, median of rounds (min–max):');
  console.log(armTable(results));
  console.log('\nRatios of README, Goals, per round and median (min–max):');
  console.log(ratioTable(results));
  console.log(`\nerrors: ${errors} in all slices (goal 0)`);
  const mb = (b: number) => `${(b / 1e6).toFixed(1)} MB`;
  console.log(
    `\nMemory: after seeding heap ${mb(seeded.heapUsed)} RSS ${mb(seeded.rss)}; after the arms heap ` +
      `${mb(afterArms.heapUsed)} RSS ${mb(afterArms.rss)} (each task keeps its latest maxRetainedFinalRemindersPerTask displaced records, R48)`,
  );
  if (memTasks > 0) {
    const m = await memoryPhase(server, { tasks: memTasks, perTask: memPerTask, retentionMs });
    console.log(memoryLines(m));
  }
  return errors === 0 ? 0 : 1;
}

const server = await startServer(['--retention-ms', String(retentionMs)]);
const stop = () => {
  server.stop();
  process.exit(130);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
try {
  process.exitCode = await main(server);
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  server.stop();
}
