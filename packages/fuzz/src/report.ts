import type { BindingReport } from './run-fuzz.js';
import { failures } from './run-fuzz.js';

/** Kinds of failure listed per binding, most frequent first. */
const MAX_FINDINGS = 25;

const mib = (v: number | undefined): string => (v === undefined ? 'n/a' : `${v.toFixed(1)} MiB`);

/** The table `npm run fuzz` prints: one row per binding, then the findings to replay. */
export function formatReport(reports: readonly BindingReport[], seed: number): string[] {
  const header = [
    'binding',
    'sent',
    'typed errors',
    'accepted',
    'wrongly accepted',
    '5xx/INTERNAL',
    'gRPC runtime (W15)',
    'untyped',
    'closed',
    'hangs',
    'crashes',
    'RSS before',
    'RSS after',
  ];
  const rows = reports.map((r) => [
    r.binding,
    String(r.sent),
    String(r.typed),
    String(r.accepted),
    String(r.wronglyAccepted),
    String(r.internal),
    String(r.runtime),
    String(r.untyped),
    r.closedUnexpected === 0 ? String(r.closed) : `${r.closed} (${r.closedUnexpected} unexpected)`,
    String(r.hangs),
    String(r.crashes),
    mib(r.rssBeforeMiB),
    mib(r.rssAfterMiB),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
      .join('  ');
  const out = [line(header), ...rows.map(line)];
  for (const r of reports) {
    if (r.crash !== undefined) out.push('', `${r.binding}: the worker crashed: ${r.crash}`);
    if (r.findings.length === 0) continue;
    out.push(
      '',
      `${r.binding}: findings (replay one with: npm run fuzz -- --seed ${seed} --binding ${r.binding} --case <n>)`,
    );
    const shown = [...r.findings].sort((a, b) => b.count - a.count).slice(0, MAX_FINDINGS);
    for (const f of shown) {
      const why = f.mustRefuse === undefined ? '' : ` — must be refused: ${f.mustRefuse}`;
      out.push(
        `  ${String(f.count).padStart(5)}× e.g. #${f.index} ${f.kind}: ${f.outcome.kind} (${f.outcome.detail})${why}`,
      );
    }
    if (r.findings.length > shown.length) {
      out.push(`  … and ${r.findings.length - shown.length} more kinds of failure`);
    }
  }
  const failed = reports.reduce((n, r) => n + failures(r), 0);
  out.push(
    '',
    failed === 0
      ? 'fuzz: zero INTERNAL/5xx, untyped answers, wrongful acceptances, hangs and crashes'
      : `fuzz: ${failed} failure(s)`,
  );
  return out;
}
