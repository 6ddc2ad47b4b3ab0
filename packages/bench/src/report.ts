import { ARM_NAMES, ARMS, type ArmName, BINDINGS } from './arms.js';
import { armsOf, goalText, ratioDefs, verdict } from './goals.js';
import type { MemoryResult } from './memory-phase.js';
import type { Metric, Results, SliceResult } from './slice.js';
import { type Spread, spread } from './stats.js';

/** Rows as aligned columns: the first left-aligned, the others right-aligned. */
export function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length))) ?? [];
  return rows
    .map((r) =>
      r
        .map((cell, c) => (c === 0 ? cell.padEnd(widths[c] ?? 0) : cell.padStart(widths[c] ?? 0)))
        .join('  '),
    )
    .join('\n');
}

export function fmt(value: number, digits: number): string {
  return Number.isFinite(value) ? value.toFixed(digits) : 'n/a';
}

/** `median (min–max)`, as every figure of the reports is given. */
export function cell(s: Spread, digits: number): string {
  return `${fmt(s.median, digits)} (${fmt(s.min, digits)}–${fmt(s.max, digits)})`;
}

/** Per arm: median of rounds with min–max. */
export function armTable(results: Results): string {
  const rows = [
    [
      'arm',
      'req/s',
      'p50 ms',
      'p99 ms',
      'server CPU µs/req',
      'main thread µs/req',
      'server CPU %',
      'client µs/req',
      'others %',
      'errors',
    ],
  ];
  for (const name of ARM_NAMES) {
    const slices = results.get(name) ?? [];
    if (slices.length === 0) continue; // not run (--arms subset)
    const col = (f: (s: (typeof slices)[number]) => number, d: number) =>
      cell(spread(slices.map(f)), d);
    rows.push([
      ARMS[name].label,
      col((s) => s.reqPerSec, 0),
      col((s) => s.p50Ms, 2),
      col((s) => s.p99Ms, 1),
      col((s) => s.serverCpuUsPerReq, 0),
      col((s) => s.serverMainCpuUsPerReq, 0),
      col((s) => s.serverCpuPct, 0),
      col((s) => s.clientCpuUsPerReq, 0),
      col((s) => s.foreignCpuPct, 0),
      String(slices.reduce((n, s) => n + s.errors, 0)),
    ]);
  }
  return table(rows);
}

/** `num`'s value over `den`'s `metric`, round by round (`numValue` defaults to `num`'s `metric`). */
function perRound(
  results: Results,
  num: ArmName,
  den: ArmName,
  metric: Metric,
  numValue: (s: SliceResult) => number = (s) => s[metric],
): number[] {
  const a = results.get(num) ?? [];
  const b = results.get(den) ?? [];
  return a.map((s, i) => {
    const d = b[i];
    return d === undefined ? Number.NaN : numValue(s) / d[metric];
  });
}

/** The the goals ratios: per round, their median (min–max), and the verdict against each goal. */
export function ratioTable(results: Results): string {
  const rows = [['binding', 'ratio', 'per round', 'median (min–max)', 'goal', 'verdict']];
  for (const def of ratioDefs()) {
    const values = perRound(results, def.num, def.den, def.metric);
    const s = spread(values);
    rows.push([
      def.binding,
      def.label,
      values.map((v) => fmt(v, 2)).join(' '),
      cell(s, 2),
      def.goal ? goalText(def.goal) : `anchor ${def.anchor ?? '—'}`,
      def.goal ? verdict(def.goal, s) : 'info',
    ]);
  }
  return table(rows);
}

const passFail = (ok: boolean) => (ok ? 'PASS' : 'FAIL');

export function errorsLine(errors: number): string {
  return `errors: ${errors} in all slices (goal 0: ${passFail(errors === 0)})`;
}

/**
 * The plain inject arms' live reminders (R17): the most one task held when a
 * warm-up or slice ended, against the quota, and what the turn boundaries
 * after them left live. Nothing when no plain arm ran.
 */
export function plainReminderLines(results: Results, quota: number): string[] {
  const slices = ARM_NAMES.filter((a) => ARMS[a].kind === 'inject-plain').flatMap(
    (a) => results.get(a) ?? [],
  );
  const live = slices.flatMap((s) =>
    s.maxLiveReminders === undefined ? [] : [s.maxLiveReminders],
  );
  if (live.length === 0) return [];
  const maxLive = Math.max(...live);
  const left = slices.reduce((n, s) => n + (s.plainLeft ?? 0), 0);
  return [
    `Inject (nothing displaced): most live reminders on one task when a warm-up or slice ended ${maxLive} ` +
      `(quota maxLiveRemindersPerTask ${quota}, R17; goal below it, so no inject met the quota: ${passFail(maxLive < quota)})`,
    `  plain reminders live after the turn boundaries that end them between slices: ${left} (goal 0: ${passFail(left === 0)})`,
  ];
}

/**
 * The SendMessage workaround's cost that no ratio shows: every follow-up is
 * stored in its task's history, which only grows. Nothing when no such arm ran.
 */
export function followUpLines(results: Results): string[] {
  const histories = ARM_NAMES.filter((a) => ARMS[a].kind === 'send-reminder')
    .flatMap((a) => results.get(a) ?? [])
    .flatMap((s) => (s.followUpHistory === undefined ? [] : [s.followUpHistory]));
  if (histories.length === 0) return [];
  const mean = spread(histories.map((h) => h.meanMessages));
  const tasks = histories[0]?.tasks ?? 0;
  return [
    `SendMessage workaround (info): each follow-up is a message stored in the task's history for good ` +
      `(an inject adds none), and every follow-up loads, copies and stores that history: the workaround's ` +
      `real cost, which grows with every reminder. Each slice ran on ${tasks} fresh tasks; when it ended ` +
      `they held ${cell(mean, 1)} messages on average (median of slices, min–max), at most ` +
      `${Math.max(...histories.map((h) => h.maxMessages))}. The ratios above measure the workaround on such ` +
      `short histories; a task that has run longer pays more.`,
  ];
}

/**
 * The displacing inject's publish (SliceResult.publishCpuUsPerReq) per
 * binding, and its CPU ratio to GetTask without it when GetTask ran: context
 * for its goal (README, "What the publish holds").
 */
export function publishLines(results: Results): string[] {
  const lines: string[] = [];
  for (const binding of BINDINGS) {
    const arms = armsOf(binding);
    const injects = results.get(arms.inject) ?? [];
    const publish = injects.flatMap((s) =>
      s.publishCpuUsPerReq === undefined ? [] : [s.publishCpuUsPerReq],
    );
    if (publish.length === 0) continue;
    const cpu = injects.map((s) => s.serverCpuUsPerReq);
    let line = `  ${binding}: ${cell(spread(publish), 0)} µs/req of ${cell(spread(cpu), 0)}`;
    if ((results.get(arms.get) ?? []).length > 0) {
      const without = perRound(
        results,
        arms.inject,
        arms.get,
        'serverCpuUsPerReq',
        (s) => s.serverCpuUsPerReq - (s.publishCpuUsPerReq ?? Number.NaN),
      );
      line +=
        `; without it, Inject (displacing)/GetTask CPU µs/req ` +
        `${without.map((v) => fmt(v, 2)).join(' ')}, median ${cell(spread(without), 2)}`;
    }
    lines.push(line);
  }
  if (lines.length === 0) return [];
  return [
    'Inject (displacing), of its server CPU (info): the publish of its waiting displacement events ' +
      'after its slice (R57), status updates the A2A server loads, merges, saves and copies (R30); ' +
      'median of rounds (min–max):',
    ...lines,
  ];
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

export function memoryLines(m: MemoryResult): string {
  const target = 1024 + m.bodyChars;
  return [
    `heap (forced GC): before ${mb(m.before)} → ${m.reminders} pending reminders ${mb(m.afterInject)} → ` +
      `${m.reminders} more displacing them ${mb(m.afterDisplace)} → tasks ended, records past retention ${mb(m.afterEnd)}`,
    `  per pending reminder: ${fmt(m.bytesPerPending, 0)} B (body ${m.bodyChars} chars; goal ≤ 1 KB + body = ${target} B: ` +
      `${m.bytesPerPending <= target ? 'PASS' : 'FAIL'})`,
    `  per displaced record kept until the task ends (R34/R35): ${fmt(m.bytesPerDisplacedRecord, 0)} B`,
    `  SDK state freed by ending the control tasks (no reminders): ${mb(m.sdkFreedPerGroup)}`,
    `  residual after end + retention vs. before (minus both groups' SDK state): ${mb(m.residual)} = ` +
      `${fmt((100 * m.residual) / m.before, 1)} % of before (goal within 5 %: ${Math.abs(m.residual) <= 0.05 * m.before ? 'PASS' : 'FAIL'})`,
    `  of which event batches found in the ended tasks' stored metadata (R30; R66 keeps them out), ` +
      `${m.tasksWithStoredBatch} tasks: ${mb(m.storedBatches)}; the rest ${mb(m.residual - m.storedBatches)} = ` +
      `${fmt((100 * (m.residual - m.storedBatches)) / m.before, 1)} % of before (info)`,
  ].join('\n');
}
