// What the service alone costs per call (README, Where the time goes):
// `npm run bench:service -w @a2a-reminders/bench`. The bench stack in this process, no transport:
// the SDK's getTask, a plain inject and a displacing inject called straight on the request
// handler and the reminder service, 16 at a time, on the 1000 seeded tasks, each call with a
// context of its own. First every task gets R48's full count of retained records, as a long run
// leaves it. Around each window the benchmark's steps (plain reminders ended, waiting
// displacement events published, a full GC); the window publishes its own waiting events, as a
// slice does, though with fewer events per task than a 10 s slice gathers, and that publish is
// printed apart too. Requests are built before the full GC. CPU per call from process.cpuUsage
// (all threads); arms rotate one position per round. Figures differ from the benchmark's (no
// sockets, no codecs); they compare the arms' own work.
// Flags: --rounds 6 --calls 20000 --warmup-calls 5000
import type { GetTaskRequest } from '@a2a-js/sdk';
import { defaultReminderLimits, TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import type { InjectTaskReminderRequest } from '@a2a-reminders/proto';
import { InjectTaskReminderRequestSchema } from '@a2a-reminders/proto';
import { create } from '@bufbuild/protobuf';
import { publishDelayedAndStored } from './admin-route.js';
import type { ArmKind } from './arms.js';
import { createBenchStack } from './bench-stack.js';
import { numberFlag } from './cli-args.js';
import { InjectIds, type InjectStyle, injectReminderJson } from './inject-request.js';
import { inParallel } from './json-rpc-fetch.js';
import { pick, roundRobin } from './pick-task.js';
import { endPlainReminders } from './plain-reminder-turns.js';
import { benchCaller, seedTasks } from './seed-tasks.js';
import { aroundSlice, type SliceHost } from './slice-steps.js';
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
const caller = () => benchCaller([TASK_REMINDERS_EXTENSION_URI]);

type ArmName = Extract<ArmKind, 'get' | 'inject-plain' | 'inject'>;
const ARM_LABELS: Record<ArmName, string> = {
  get: 'SDK getTask',
  'inject-plain': 'Inject (nothing displaced)',
  inject: 'Inject (displacing)',
};

function injectRequests(
  style: InjectStyle,
  count: number,
  target: () => string,
): InjectTaskReminderRequest[] {
  return Array.from({ length: count }, () =>
    create(InjectTaskReminderRequestSchema, injectReminderJson(target(), ids.next(), style)),
  );
}

type Call = () => Promise<void>;

const injectCall =
  (request: InjectTaskReminderRequest): Call =>
  async () => {
    await stack.reminders.injectTaskReminder(request, caller());
  };

/** `count` calls of the arm, their requests built now; run 16 at a time (inParallel). */
function callsOf(arm: ArmName, count: number): Call[] {
  if (arm === 'get') {
    return Array.from({ length: count }, () => {
      const request: GetTaskRequest = { tenant: '', id: pick(taskIds) };
      return async () => {
        await stack.requestHandler.getTask(request, caller());
      };
    });
  }
  const built =
    arm === 'inject'
      ? injectRequests('displacing', count, () => pick(taskIds))
      : injectRequests('plain', count, roundRobin(taskIds));
  return built.map(injectCall);
}

/** As between benchmark slices: the plain arm's reminders ended by turn boundaries. */
/** The stack in this process as a slice's host: the benchmark's steps without HTTP. */
const host: SliceHost = {
  endPlainReminders: () => endPlainReminders(taskIds, stack.executor, stack.reminders),
  publishDelayed: () => publishDelayedAndStored(stack.reminders),
  fullGc: async () => gc(),
};

/** CPU µs per call of one window: all of it, and the part spent publishing its waiting events. */
interface WindowCost {
  readonly perCall: number;
  readonly publishPerCall: number;
}

const cpuSince = (before: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(before);
  return used.user + used.system;
};

async function measuredWindow(arm: ArmName): Promise<WindowCost> {
  // Built before the warm-up, so before the full GC too.
  const jobs = callsOf(arm, calls);
  const { window, warmupSweep, sweep } = await aroundSlice(
    host,
    [arm],
    { warmup: () => inParallel(16, callsOf(arm, warmupCalls)), fullGc: true },
    async () => {
      const before = process.cpuUsage();
      await inParallel(16, jobs);
      const callsDone = cpuSince(before);
      // The window pays for its own waiting displacement events, as a benchmark slice does.
      await host.publishDelayed();
      const all = cpuSince(before);
      return { perCall: all / calls, publishPerCall: (all - callsDone) / calls };
    },
  );
  // As run-bench checks them: the turn boundaries ended every plain reminder.
  for (const s of [warmupSweep, sweep]) {
    if (s !== undefined && s.plainLeft !== 0) {
      throw new Error(`${s.plainLeft} plain reminders left live`);
    }
  }
  return window;
}

// R48: every task at its cap of retained final records, so every displacement purges one.
const fill = injectRequests(
  'displacing',
  taskIds.length * (defaultReminderLimits.maxRetainedFinalRemindersPerTask + 1),
  roundRobin(taskIds),
);
await inParallel(16, fill.map(injectCall));
await publishDelayedAndStored(stack.reminders);

const arms: ArmName[] = ['get', 'inject-plain', 'inject'];
const perArm = new Map<ArmName, WindowCost[]>(arms.map((a) => [a, []]));
for (let round = 0; round < rounds; round += 1) {
  for (let i = 0; i < arms.length; i += 1) {
    const arm = arms[(i + round) % arms.length] as ArmName;
    perArm.get(arm)?.push(await measuredWindow(arm));
  }
  console.log(`round ${round + 1} done`);
}

const of = (arm: ArmName) => (perArm.get(arm) ?? []).map((w) => w.perCall);
const publishOf = (arm: ArmName) => (perArm.get(arm) ?? []).map((w) => w.publishPerCall);
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
// Only the displacing arm leaves waiting events (R57); the others' publish finds none.
console.log(
  `${'  of which the publish'.padEnd(28)} ${cell(publishOf('inject'))} (its waiting events)`,
);
process.exit(0);
