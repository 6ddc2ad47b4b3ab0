// The bench server process (README, What it measures). Run by run-bench.ts with --expose-gc;
// prints one BENCH_SERVER line with its ports and pid once the tasks are seeded.
import { createBenchStack } from './bench-stack.js';
import { numberFlag } from './cli-args.js';
import { seedTasks } from './seed-tasks.js';
import { serveBenchStack } from './serve-stack.js';
import { BENCH_MAX_LIVE_REMINDERS, READY_PREFIX } from './wire.js';

const argv = process.argv.slice(2);
const taskCount = numberFlag(argv, '--tasks', 1000);
// The SendMessage workaround arms' own tasks, seeded afresh before each of their slices.
const followUpTasks = numberFlag(argv, '--followup-tasks', 1000);
// Short retention only so the memory phase sees ended tasks' records purged (R35);
// the inject path never reads it except for the lazy sweep check.
const retentionMs = numberFlag(argv, '--retention-ms', 2000);

// The bounded-state figure's diagnostic arm raises the cap on final records (R48).
const maxRetainedFinals = numberFlag(argv, '--max-retained-finals', Number.NaN);
// R57's delay (run-bench.ts sets it longer than an interleaved group: README, What it measures).
const delayMs = numberFlag(argv, '--displaced-event-delay-ms', Number.NaN);
const stack = createBenchStack(
  {
    retentionMs,
    maxLiveRemindersPerTask: BENCH_MAX_LIVE_REMINDERS,
    ...(Number.isNaN(maxRetainedFinals)
      ? {}
      : { maxRetainedFinalRemindersPerTask: maxRetainedFinals }),
  },
  undefined,
  undefined,
  followUpTasks,
  Number.isNaN(delayMs) ? undefined : delayMs,
);

const served = await serveBenchStack(stack);

stack.seededTaskIds.push(...(await seedTasks(stack.requestHandler, taskCount)));

const { httpPort, grpcPort } = served;
console.log(
  `${READY_PREFIX}${JSON.stringify({ httpPort, grpcPort, pid: process.pid, tasks: taskCount })}`,
);

function shutdown(): void {
  served.close();
  process.exit(0);
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
// The orchestrator holds our stdin; if it dies, we stop too.
process.stdin.on('end', shutdown);
process.stdin.resume();
