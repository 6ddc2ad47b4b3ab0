// What the service alone costs per call (README, Where the time goes):
// `npm run bench:service -w @a2a-reminders/bench`. The bench stack in this process, no transport:
// the SDK's getTask, a plain inject and a displacing inject called straight on the request
// handler and the reminder service, 16 at a time, on the 1000 seeded tasks, each call with a
// context of its own. First every task gets R48's full count of retained records, as a long run
// leaves it. Around each window the benchmark's steps (plain reminders ended, waiting
// displacement events published, a full GC); the window publishes its own waiting events, as a
// slice does, though with fewer events per task than a 10 s slice gathers. Requests are built
// before the full GC. CPU per call from process.cpuUsage (all threads); arms rotate one position
// per round. Figures differ from the benchmark's (no sockets, no codecs); they compare the arms'
// own work.
// Flags: --rounds 6 --calls 20000 --warmup-calls 5000
import type { GetTaskRequest } from '@a2a-js/sdk';
import { ServerCallContext, UnauthenticatedUser } from '@a2a-js/sdk/server';
import { defaultReminderLimits, TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import type { InjectTaskReminderRequest } from '@a2a-reminders/proto';
import { InjectTaskReminderRequestSchema } from '@a2a-reminders/proto';
import { create } from '@bufbuild/protobuf';
import { publishDelayedAndStored } from './admin-route.js';
import { createBenchStack } from './bench-stack.js';
import { numberFlag } from './cli-args.js';
import { InjectIds, type InjectStyle, injectReminderJson } from './inject-request.js';
import { pick, roundRobin } from './pick-task.js';
import { endPlainReminders } from './plain-reminder-turns.js';
import { seedTasks } from './seed-tasks.js';
import { median } from './stats.js';
import { BENCH_MAX_LIVE_REMINDERS } from './wire.js';

const argv = process.argv.slice(2);
// A multiple of the three arms, so each leads a round as often as the others.
const rounds = numberFlag(argv, '--rounds', 6);
const calls = numberFlag(argv, '--calls', 20_000);
const warmupCalls = numberFlag(argv, '--warmup-calls', 5000);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc (npm run bench:service)');

const stack = createBenchStack({
  retentionMs: 2000,
  maxLiveRemindersPerTask: BENCH_MAX_LIVE_REMINDERS,
});
const taskIds = await seedTasks(stack.requestHandler, 1000);
const ids = new InjectIds('service');

// Every call gets its own context, as every request does on a binding.
const caller = () =>
  new ServerCallContext({
    user: new UnauthenticatedUser(),
    requestedVersion: '1.0',
    requestedExtensions: [TASK_REMINDERS_EXTENSION_URI],
  });

type ArmName = 'get' | 'inject-plain' | 'inject';
const ARM_LABELS: Record<ArmName, string> = {
  get: 'SDK getTask',
  'inject-plain': 'Inject (nothing displaced)',
  inject: 'Inject (displacing)',
};

/** One call per element, 16 at a time. */
async function run(count: number, call: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await call(next++);
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

function injectRequests(
  style: InjectStyle,
  count: number,
  target: () => string,
): InjectTaskReminderRequest[] {
  return Array.from({ length: count }, () =>
    create(InjectTaskReminderRequestSchema, injectReminderJson(target(), ids.next(), style)),
  );
}

/** `count` calls of the arm, their requests built now. */
function callsOf(arm: ArmName, count: number): (i: number) => Promise<unknown> {
  if (arm === 'get') {
    const built: GetTaskRequest[] = Array.from({ length: count }, () => ({
      tenant: '',
      id: pick(taskIds),
    }));
    return (i) => stack.requestHandler.getTask(built[i] as GetTaskRequest, caller());
  }
  const built =
    arm === 'inject'
      ? injectRequests('displacing', count, () => pick(taskIds))
      : injectRequests('plain', count, roundRobin(taskIds));
  return (i) => stack.reminders.injectTaskReminder(built[i] as InjectTaskReminderRequest, caller());
}

/** As between benchmark slices: the plain arm's reminders ended by turn boundaries. */
async function endPlain(): Promise<void> {
  const sweep = await endPlainReminders(taskIds, stack.executor, stack.reminders);
  if (sweep.plainLeft !== 0) throw new Error(`${sweep.plainLeft} plain reminders left live`);
}

async function measuredWindow(arm: ArmName): Promise<number> {
  await run(warmupCalls, callsOf(arm, warmupCalls));
  if (arm === 'inject-plain') await endPlain();
  await publishDelayedAndStored(stack.reminders);
  const call = callsOf(arm, calls);
  gc?.();
  const before = process.cpuUsage();
  await run(calls, call);
  // The window pays for its own waiting displacement events, as a benchmark slice does.
  await publishDelayedAndStored(stack.reminders);
  const used = process.cpuUsage(before);
  if (arm === 'inject-plain') await endPlain();
  return (used.user + used.system) / calls;
}

// R48: every task at its cap of retained final records, so every displacement purges one.
const fill = injectRequests(
  'displacing',
  taskIds.length * (defaultReminderLimits.maxRetainedFinalRemindersPerTask + 1),
  roundRobin(taskIds),
);
await run(fill.length, (i) =>
  stack.reminders.injectTaskReminder(fill[i] as InjectTaskReminderRequest, caller()),
);
await publishDelayedAndStored(stack.reminders);

const arms: ArmName[] = ['get', 'inject-plain', 'inject'];
const perArm = new Map<ArmName, number[]>(arms.map((a) => [a, []]));
for (let round = 0; round < rounds; round += 1) {
  for (let i = 0; i < arms.length; i += 1) {
    const arm = arms[(i + round) % arms.length] as ArmName;
    perArm.get(arm)?.push(await measuredWindow(arm));
  }
  console.log(`round ${round + 1} done`);
}

const of = (arm: ArmName) => perArm.get(arm) ?? [];
const cell = (values: readonly number[]) =>
  `${median(values).toFixed(1)} (${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)})`;
console.log(
  `\nservice alone, in process: CPU µs per call, median of ${rounds} rounds (min–max); ` +
    `${calls} calls per window, 16 at a time, 1000 tasks`,
);
for (const arm of arms) console.log(`${ARM_LABELS[arm].padEnd(28)} ${cell(of(arm))}`);
const perRound = (a: ArmName, b: ArmName) => of(a).map((v, i) => v - (of(b)[i] ?? 0));
console.log(`${'plain − getTask'.padEnd(28)} ${cell(perRound('inject-plain', 'get'))}`);
console.log(`${'displacing − plain'.padEnd(28)} ${cell(perRound('inject', 'inject-plain'))}`);
process.exit(0);
