import type { ChaosRow } from './run-chaos.js';
import { failures } from './run-chaos.js';

/** Examples of each failing check printed under the table. */
const EXAMPLES = 5;

/** The median of some numbers (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

const seconds = (ms: number | undefined): string =>
  ms === undefined ? '-' : `${(ms / 1000).toFixed(1)}s`;

/** Codes with columns of their own: none of them is a typed answer R69 allows. */
const APART = new Set(['INTERNAL', 'UNTYPED', 'UNREACHABLE']);

/** Typed errors by code, most frequent first. */
function errorsText(row: ChaosRow): string {
  const entries = [...row.errors].filter(([code]) => !APART.has(code));
  if (entries.length === 0) return '0';
  return entries
    .sort((a, b) => b[1] - a[1])
    .map(([code, n]) => `${code} ${n}`)
    .join(', ');
}

function recoverText(row: ChaosRow): string {
  if (!row.injected) return '-';
  const base = `${seconds(median(row.recoveryMs))}/${seconds(Math.max(...row.recoveryMs, 0))}`;
  return row.unrecovered.length === 0 ? base : `${base} (${row.unrecovered.length} never)`;
}

/** The table `npm run chaos` prints: one row per fault × store, details, then the count line. */
export function formatReport(rows: readonly ChaosRow[]): string[] {
  const header = [
    'store',
    'fault',
    'alive',
    'acked',
    'lost',
    'dup',
    'misordered',
    'typed errors (by code)',
    'INTERNAL',
    'untyped',
    'hung',
    'recover med/max',
    'stuck',
    'frozen',
    'result',
  ];
  const cells = rows.map((r) => [
    r.store,
    r.fault,
    `${r.alive}/${r.processes}`,
    String(r.acked),
    r.purged === 0 ? String(r.lost.length) : `${r.lost.length} (+${r.purged} purged)`,
    String(r.duplicates.length),
    String(r.misordered.length),
    errorsText(r),
    String(r.errors.get('INTERNAL') ?? 0),
    String((r.errors.get('UNTYPED') ?? 0) + (r.errors.get('UNREACHABLE') ?? 0)),
    String(r.hung.length),
    recoverText(r),
    String(r.stuck.length),
    String(r.frozen.length),
    r.injected ? (failures(r).length === 0 ? 'pass' : 'FAIL') : 'NOT INJECTED',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? '').length)));
  const text = (i: number) => i <= 1 || i === 7 || i === 14;
  const line = (row: readonly string[]) =>
    row
      .map((c, i) => (text(i) ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  const out = [line(header), ...cells.map(line)];
  for (const row of rows) {
    const failed = failures(row);
    out.push(
      '',
      `${row.store} / ${row.fault}: ${failed.length === 0 ? 'pass' : `FAIL (${failed.join(', ')})`}`,
    );
    out.push(`  fault: ${row.detail}`);
    const sections: Array<[string, readonly string[]]> = [
      ['lost', row.lost],
      ['duplicates', row.duplicates],
      ['misordered', row.misordered],
      ['hung', row.hung],
      ['stuck', row.stuck],
      ['frozen', row.frozen],
      ['never recovered', row.unrecovered],
      ['checks not made', row.unchecked],
      ['fault steps failed', row.faultFailures],
    ];
    for (const [name, items] of sections) {
      if (items.length === 0) continue;
      out.push(`  ${name}:`);
      for (const item of items.slice(0, EXAMPLES)) out.push(`    ${item}`);
      if (items.length > EXAMPLES) out.push(`    … and ${items.length - EXAMPLES} more`);
    }
    for (const [code, message] of row.errorSamples) {
      out.push(`  ${code} e.g.: ${message}`);
    }
    for (const note of row.notes) out.push(`  note: ${note}`);
    if (row.logs.length > 0) out.push(...row.logs.map((l) => `  ${l}`));
  }
  const failedRows = rows.filter((r) => failures(r).length > 0).length;
  out.push('', `${rows.length - failedRows} passed, ${failedRows} failed`);
  return out;
}
