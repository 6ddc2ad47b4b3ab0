import type { LoopResult } from './closed-loop.js';
import type { CpuShares } from './cpu-shares.js';
import type { LatencyResult, LatencySample } from './cross-replica-latency.js';
import { goalText, REPLICA_SCALING_GOAL, verdict } from './goals.js';
import { cell, fmt, table } from './report.js';
import { percentile, spread } from './stats.js';

/** `one`: every inject on replica A; `two`: round-robin over A and B. */
export type ReplicaArm = 'one' | 'two';

export interface ArmSlice extends LoopResult {
  readonly cpu: CpuShares;
}

export interface ReplicaReport {
  readonly settings: string;
  readonly cores: number;
  readonly slices: Record<ReplicaArm, ArmSlice[]>;
  readonly latency: LatencyResult;
}

const LABEL: Record<ReplicaArm, string> = { one: 'one replica (A)', two: 'two replicas (A+B)' };

const col = (slices: readonly ArmSlice[], f: (s: ArmSlice) => number, digits: number) =>
  cell(spread(slices.map(f)), digits);

/** CPU of the bench's own processes per inject, µs: servers, PostgreSQL, load driver. */
function usPerInject(s: ArmSlice, pct: number): number {
  return (pct / 100) * 1e6 * (s.elapsedMs / 1000 / s.requests);
}
const serversPct = (s: ArmSlice) => s.cpu.servers.reduce((a, b) => a + b, 0);
const postgresPct = (s: ArmSlice) => s.cpu.postgresBench + s.cpu.postgresShared;
const benchPct = (s: ArmSlice) => serversPct(s) + postgresPct(s) + s.cpu.load;

function throughputTable(slices: Record<ReplicaArm, ArmSlice[]>, cores: number): string {
  const rows = [
    [
      'arm',
      'req/s',
      'p50 ms',
      'p99 ms',
      'errors',
      'A %',
      'B %',
      'PG bench %',
      'PG shared %',
      'load %',
      'others %',
      `machine % (of ${cores * 100})`,
    ],
  ];
  for (const arm of ['one', 'two'] as const) {
    const s = slices[arm];
    rows.push([
      LABEL[arm],
      col(s, (x) => x.reqPerSec, 0),
      col(s, (x) => x.p50Ms, 2),
      col(s, (x) => x.p99Ms, 1),
      String(s.reduce((n, x) => n + x.errors, 0)),
      col(s, (x) => x.cpu.servers[0] ?? 0, 0),
      col(s, (x) => x.cpu.servers[1] ?? 0, 0),
      col(s, (x) => x.cpu.postgresBench, 0),
      col(s, (x) => x.cpu.postgresShared, 0),
      col(s, (x) => x.cpu.load, 0),
      col(s, (x) => x.cpu.others, 0),
      col(s, (x) => x.cpu.machine, 0),
    ]);
  }
  return table(rows);
}

function costTable(slices: Record<ReplicaArm, ArmSlice[]>): string {
  const rows = [['CPU µs per inject', 'servers', 'PostgreSQL', 'load driver', 'all three']];
  for (const arm of ['one', 'two'] as const) {
    const s = slices[arm];
    rows.push([
      LABEL[arm],
      col(s, (x) => usPerInject(x, serversPct(x)), 0),
      col(s, (x) => usPerInject(x, postgresPct(x)), 0),
      col(s, (x) => usPerInject(x, x.cpu.load), 0),
      col(s, (x) => usPerInject(x, benchPct(x)), 0),
    ]);
  }
  return table(rows);
}

/**
 * What the machine allows, from the two-replica slices: the CPU left to the
 * bench (all cores minus other work) divided by what one inject costs in all
 * of its processes, as a multiple of the one-replica req/s of the same round.
 */
function machineCeiling(slices: Record<ReplicaArm, ArmSlice[]>, cores: number): number[] {
  return slices.two.map((s, i) => {
    const one = slices.one[i];
    if (one === undefined) return Number.NaN;
    const available = (cores * 100 - s.cpu.others) / 100;
    return available / (usPerInject(s, benchPct(s)) / 1e6) / one.reqPerSec;
  });
}

function latencyTable(latency: LatencyResult): string {
  const rows = [['path (ms)', 'samples', 'p50', 'p99', 'min', 'max']];
  const line = (
    label: string,
    samples: readonly LatencySample[],
    f: (s: LatencySample) => number,
  ) => {
    const sorted = samples.map(f).sort((x, y) => x - y);
    rows.push([
      label,
      String(sorted.length),
      fmt(percentile(sorted, 50), 2),
      fmt(percentile(sorted, 99), 2),
      fmt(sorted[0] ?? Number.NaN, 2),
      fmt(sorted.at(-1) ?? Number.NaN, 2),
    ]);
  };
  line("inject on B → event on A, from B's response", latency.cross, (s) => s.fromResponse);
  line('inject on B → event on A, from the request sent', latency.cross, (s) => s.fromSend);
  line("inject on A → event on A, from A's response", latency.local, (s) => s.fromResponse);
  line('inject on A → event on A, from the request sent', latency.local, (s) => s.fromSend);
  return table(rows);
}

/** The evidence for a missed goal, from /proc: where the CPU went, and what the goal would need. */
function whyMissed(slices: Record<ReplicaArm, ArmSlice[]>, cores: number, ceiling: number): string {
  const med = (arm: ReplicaArm, f: (s: ArmSlice) => number) => spread(slices[arm].map(f)).median;
  const perInject = med('two', (x) => usPerInject(x, benchPct(x)));
  const needed = spread(
    slices.two.map((x, i) => {
      const one = slices.one[i];
      if (one === undefined) return Number.NaN;
      return (REPLICA_SCALING_GOAL.target * one.reqPerSec * usPerInject(x, benchPct(x))) / 1e6;
    }),
  ).median;
  const pct = (v: number) => `${fmt(v, 0)} %`;
  return [
    'why (CPU from /proc, medians of the slices):',
    `  one replica: the bench's processes used ${pct(med('one', benchPct))} of ${cores * 100} % ` +
      `(replica A ${pct(med('one', (x) => x.cpu.servers[0] ?? 0))}, PostgreSQL ${pct(med('one', postgresPct))}, ` +
      `load driver ${pct(med('one', (x) => x.cpu.load))}); other work ${pct(med('one', (x) => x.cpu.others))}; ` +
      `machine busy ${pct(med('one', (x) => x.cpu.machine))}`,
    `  two replicas: ${fmt(REPLICA_SCALING_GOAL.target, 1)}× the one-replica req/s at ${fmt(perInject, 0)} µs of CPU ` +
      `per inject (replicas + PostgreSQL + load driver) needs ${fmt(needed, 2)} cores; the machine has ${cores}, ` +
      `and other work took ${pct(med('two', (x) => x.cpu.others))} of one core`,
    ceiling < REPLICA_SCALING_GOAL.target
      ? `  so the cores fit at most ${fmt(ceiling, 2)}× the one-replica req/s: a second replica adds a process, not CPU; ` +
        'the goal needs the replicas (or PostgreSQL, or the load) on cores of their own'
      : `  the cores had room for ${fmt(ceiling, 2)}×: the limit is not CPU alone (see the columns)`,
  ].join('\n');
}

export function printReplicaReport(r: ReplicaReport): void {
  const { slices, cores } = r;
  console.log(`Replica bench: ${r.settings}`);
  console.log(
    "inject: JSON-RPC InjectTaskReminder, each displacing its task's previous reminder; " +
      'replicas: the store bench server with --replicated on one PostgreSQL database\n',
  );
  console.log(throughputTable(slices, cores));
  console.log(
    '(CPU in % of one core during the measured slices: A and B the replica processes, PG bench the ' +
      "PostgreSQL backends of the bench's database, PG shared the postmaster and WAL writer etc., " +
      'load the load driver, others everything else on the machine)\n',
  );
  console.log(costTable(slices));

  const ratios = slices.two.map((s, i) => s.reqPerSec / (slices.one[i]?.reqPerSec ?? Number.NaN));
  const s = spread(ratios);
  const judged = verdict(REPLICA_SCALING_GOAL, s);
  console.log(
    `\ntwo/one req/s per round ${ratios.map((x) => fmt(x, 2)).join(' ')} → median ${cell(s, 2)}; ` +
      `goal ${goalText(REPLICA_SCALING_GOAL)}: ${judged}`,
  );
  const others = (arm: ReplicaArm, i: number) => fmt(slices[arm][i]?.cpu.others ?? Number.NaN, 0);
  console.log(
    `other work per round, one/two, % of a core: ${ratios.map((_, i) => `${others('one', i)}/${others('two', i)}`).join(' ')}`,
  );
  const ceiling = spread(machineCeiling(slices, cores));
  const busy = spread(slices.two.map((x) => x.cpu.machine));
  console.log(
    `machine ceiling for two replicas (${cores} cores minus others' CPU, over all of the bench's CPU ` +
      `per inject in the two-replica slices), as a multiple of one replica: ${cell(ceiling, 2)}; ` +
      `machine busy during the two-replica slices ${cell(busy, 0)} % of ${cores * 100} %`,
  );
  if (judged !== 'PASS') console.log(whyMissed(slices, cores, ceiling.median));

  console.log(
    '\ncross-replica latency (R52), idle pair, stream = SubscribeToTask on A (SDK client, JSON-RPC SSE)',
  );
  console.log(latencyTable(r.latency));

  const errors = [...slices.one, ...slices.two].flatMap((x) => x.errorSamples);
  if (errors.length > 0) console.log(`\nerror samples: ${errors.slice(0, 3).join(' | ')}`);
}
