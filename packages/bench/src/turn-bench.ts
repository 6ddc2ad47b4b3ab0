// Turn boundary micro-benchmark (R19–R22): the cost of
// one ReminderService.beginTurn, in process, with k live reminders on the task.
// `npm run bench:turns -w @a2a-reminders/bench [-- --rounds 7 --scale 1 --no-sqlite]`.
//
// Steady state: the task's k reminders are ACTIVE with a ttl no run uses up,
// so each boundary surfaces all k again and publishes nothing (R20, R21).
// First boundary: k PENDING reminders surface for the first time and their k
// EMITTED events go out as one status update (R21, R30), on fresh tasks.
//
// Goals (in memory): k = 0 costs at most 2 µs of CPU per boundary; with k live
// reminders the cost is O(k). The O(k) criterion: the marginal CPU per
// reminder, (t(k) − t(0)) / k, at k = 64 is at most 2× that at k = 4 — a
// boundary that scanned every record of the task, or did per-reminder work
// growing with k, would fail it; a constant per reminder passes.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReminderStore } from '@a2a-reminders/core';
import { InMemoryReminderStore } from '@a2a-reminders/core';
import {
  DatabaseReminderStore,
  migrateReminderStore,
  openReminderDatabase,
} from '@a2a-reminders/database';
import { numberFlag } from './cli-args.js';
import { type Spread, spread } from './stats.js';
import { TurnFixture, type TurnTask } from './turn-fixture.js';

const argv = process.argv.slice(2);
const rounds = numberFlag(argv, '--rounds', 7);
/** Multiplies every iteration count (e.g. 0.2 for a quick look). */
const scale = numberFlag(argv, '--scale', 1);
const withSqlite = !argv.includes('--no-sqlite');

const LIVE_COUNTS = [0, 1, 4, 16, 64] as const;
const IDLE_GOAL_US = 2;
const O_K_SMALL = 4;
const O_K_LARGE = 64;
const O_K_MAX_RATIO = 2;

/** How many boundaries, or fresh tasks, one timed slice takes per store. */
interface Budget {
  /** Boundaries per slice at k live: about a constant amount of work per slice. */
  readonly steady: (k: number) => number;
  /** Fresh tasks (one first boundary each) per slice. */
  readonly firstTasks: (k: number) => number;
}

const MEMORY_BUDGET: Budget = {
  steady: (k) => Math.max(50, Math.round((100_000 * scale) / (1 + k))),
  firstTasks: (k) => Math.max(10, Math.round((400 * scale) / (1 + k / 16))),
};
const SQLITE_BUDGET: Budget = {
  steady: (k) => Math.max(10, Math.round((400 * scale) / (1 + k / 4))),
  firstTasks: (k) => Math.max(5, Math.round((40 * scale) / (1 + k / 16))),
};

interface Slice {
  /** Process CPU (user + system) per boundary, µs. */
  readonly cpuUs: number;
  /** Wall time per boundary, µs. */
  readonly wallUs: number;
}

interface Row {
  readonly k: number;
  readonly perSlice: number;
  readonly cpu: Spread;
  readonly wall: Spread;
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** Lets the tasks' queues drain what the last boundaries published. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

async function timed(count: number, run: () => Promise<void>): Promise<Slice> {
  gc();
  // The collector sweeps on helper threads after a full GC; their CPU is not the slice's.
  await new Promise((resolve) => setTimeout(resolve, 20));
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  await run();
  const cpu = process.cpuUsage(cpu0);
  const wallMs = performance.now() - wall0;
  return { cpuUs: (cpu.user + cpu.system) / count, wallUs: (wallMs * 1000) / count };
}

/** `n` boundaries back to back on one task whose k reminders are ACTIVE; checks R20, R21. */
async function steadySlice(fixture: TurnFixture, t: TurnTask, k: number, n: number) {
  const before = await fixture.service.beginTurn(t.requestContext, t.bus);
  await settle();
  const delivered = fixture.delivered;
  let last = before;
  const slice = await timed(n, async () => {
    for (let i = 0; i < n; i += 1) last = await fixture.service.beginTurn(t.requestContext, t.bus);
  });
  await settle();
  if (last.turn !== before.turn + n) {
    throw new Error(`turns went ${before.turn} → ${last.turn} over ${n} boundaries`);
  }
  if (last.reminders.length !== k || last.reminders.some((r) => r.firstSurfacing)) {
    throw new Error(`a steady boundary surfaced ${last.reminders.length} reminders, expected ${k}`);
  }
  if (fixture.delivered !== delivered) throw new Error('a steady boundary published an event');
  return slice;
}

/** One first boundary on each of `tasks` (k PENDING each): k EMITTED in one update each. */
async function firstSlice(fixture: TurnFixture, k: number, count: number): Promise<Slice> {
  const tasks: TurnTask[] = [];
  for (let i = 0; i < count; i += 1) tasks.push(await fixture.task(k));
  await settle();
  const delivered = fixture.delivered;
  let surfaced = 0;
  const slice = await timed(count, async () => {
    for (const t of tasks) {
      const turn = await fixture.service.beginTurn(t.requestContext, t.bus);
      surfaced += turn.reminders.length;
    }
    await settle();
  });
  if (surfaced !== k * count) throw new Error(`surfaced ${surfaced}, expected ${k * count}`);
  const published = fixture.delivered - delivered;
  if (published !== (k === 0 ? 0 : count)) {
    throw new Error(`first boundaries published ${published} updates for ${count} tasks`);
  }
  return slice;
}

/** Every k in every round, the order rotated per round so drift spreads evenly. */
async function measure(
  label: string,
  newStore: () => Promise<ReminderStore>,
  budget: Budget,
): Promise<{ steady: Row[]; first: Row[] }> {
  const fixture = new TurnFixture(await newStore(), Math.max(...LIVE_COUNTS));
  const tasks = new Map<number, TurnTask>();
  for (const k of LIVE_COUNTS) tasks.set(k, await fixture.task(k));
  const steady = new Map<number, Slice[]>(LIVE_COUNTS.map((k) => [k, []]));
  const first = new Map<number, Slice[]>(LIVE_COUNTS.map((k) => [k, []]));
  for (let round = -1; round < rounds; round += 1) {
    // Round -1 warms up (JIT, store caches) and is discarded.
    const order = LIVE_COUNTS.map((_, i, all) => all[(i + Math.max(0, round)) % all.length] ?? 0);
    for (const k of order) {
      const task = tasks.get(k);
      if (task === undefined) throw new Error(`no task for k=${k}`);
      const s = await steadySlice(fixture, task, k, budget.steady(k));
      const f = await firstSlice(fixture, k, budget.firstTasks(k));
      if (round >= 0) {
        steady.get(k)?.push(s);
        first.get(k)?.push(f);
      }
    }
    process.stderr.write(`${label}: round ${round + 1}/${rounds} done\n`);
  }
  const rows = (slices: Map<number, Slice[]>, perSlice: (k: number) => number): Row[] =>
    LIVE_COUNTS.map((k) => {
      const s = slices.get(k) ?? [];
      return {
        k,
        perSlice: perSlice(k),
        cpu: spread(s.map((x) => x.cpuUs)),
        wall: spread(s.map((x) => x.wallUs)),
      };
    });
  return { steady: rows(steady, budget.steady), first: rows(first, budget.firstTasks) };
}

const fmt = (v: number) => (Number.isFinite(v) ? v.toFixed(v >= 100 ? 0 : 2) : '–');
const range = (s: Spread) => `${fmt(s.median)} (${fmt(s.min)}–${fmt(s.max)})`;

/** (t(k) − t(0)) / k on the medians: what each live reminder adds to a boundary. */
function perReminder(rows: readonly Row[], k: number): number {
  const base = rows.find((r) => r.k === 0)?.cpu.median ?? Number.NaN;
  const at = rows.find((r) => r.k === k)?.cpu.median ?? Number.NaN;
  return k === 0 ? Number.NaN : (at - base) / k;
}

function table(title: string, rows: readonly Row[], unit: string): void {
  console.log(title);
  const head = ['k live', unit, 'CPU µs/boundary', 'wall µs/boundary', 'CPU µs per reminder'];
  const widths = [6, 14, 24, 24, 20];
  const line = (cells: string[]) =>
    console.log(cells.map((c, i) => c.padStart(widths[i] ?? 12)).join('  '));
  line(head);
  for (const r of rows) {
    line([
      String(r.k),
      String(r.perSlice),
      range(r.cpu),
      range(r.wall),
      fmt(perReminder(rows, r.k)),
    ]);
  }
}

function verdicts(rows: readonly Row[], withGoals: boolean): void {
  const idle = rows.find((r) => r.k === 0)?.cpu.median ?? Number.NaN;
  const small = perReminder(rows, O_K_SMALL);
  const large = perReminder(rows, O_K_LARGE);
  const ratio = large / small;
  const tag = (ok: boolean) => (withGoals ? (ok ? 'PASS' : 'FAIL') : 'context');
  console.log(
    `  k=0: ${fmt(idle)} µs CPU per boundary; goal ≤ ${IDLE_GOAL_US} µs: ${tag(idle <= IDLE_GOAL_US)}`,
  );
  console.log(
    `  O(k): CPU per reminder (t(k) − t(0)) / k at k=${O_K_LARGE} ${fmt(large)} µs vs k=${O_K_SMALL} ${fmt(small)} µs, ratio ${fmt(ratio)}; goal ≤ ${O_K_MAX_RATIO}: ${tag(ratio <= O_K_MAX_RATIO)}`,
  );
}

console.log(
  `Turn boundaries: ReminderService.beginTurn in process, InMemoryTaskStore, DefaultExecutionEventBus drained by an ExecutionEventQueue, one WORKING task per k; ${rounds} rounds after a warm-up, median (min–max) of the rounds; Node ${process.version}`,
);
const memory = await measure('memory', async () => new InMemoryReminderStore(), MEMORY_BUDGET);
console.log();
table(
  'in-memory store, steady state (k ACTIVE reminders surfaced again, nothing published)',
  memory.steady,
  'boundaries',
);
verdicts(memory.steady, true);
console.log();
table(
  'in-memory store, first boundary (k PENDING reminders emitted in one status update; fresh tasks)',
  memory.first,
  'tasks',
);
verdicts(memory.first, false);

if (withSqlite) {
  const dir = await mkdtemp(join(tmpdir(), 'turn-bench-'));
  const db = await openReminderDatabase(`sqlite:${join(dir, 'turns.db')}`);
  try {
    await migrateReminderStore(db);
    const store = new DatabaseReminderStore(db);
    const sqlite = await measure('sqlite', async () => store, SQLITE_BUDGET);
    console.log();
    table('SQLite store (context, no goal), steady state', sqlite.steady, 'boundaries');
    verdicts(sqlite.steady, false);
    console.log();
    table('SQLite store (context, no goal), first boundary', sqlite.first, 'tasks');
  } finally {
    await db.destroy();
    await rm(dir, { recursive: true, force: true });
  }
}
