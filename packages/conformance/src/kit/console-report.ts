import type { KitCaseResult } from './case-result.js';
import type { ClipLimits } from './clip.js';
import { CONSOLE_LIMITS, clipLines, clipText, prettyJson, visible } from './clip.js';
import type { Exchange } from './kit-meta.js';
import type { BindingReport, KitReport, RuleResult, RuleStatus } from './kit-report.js';

/** The report's lines stay near this width; only JSON and messages may be wider. */
const WIDTH = 100;
/** Longest assertion message or console excerpt printed per case. */
const MESSAGE_LIMIT = 2000;
const MESSAGE_LINES = 40;
/** JSON of an exchange is indented by 7 columns under its heading. */
const JSON_WIDTH = WIDTH - 7;

const LABEL: Record<RuleStatus, string> = {
  pass: 'pass',
  fail: 'FAIL',
  'not observable': 'not observable',
};
const LABEL_WIDTH = Math.max(...Object.values(LABEL).map((l) => l.length));

function indent(text: string, by: string): string {
  return text
    .split('\n')
    .map((line) => (line === '' ? line : `${by}${line}`))
    .join('\n');
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function summaryLine(binding: BindingReport): string {
  const { pass, fail, notObservable } = binding.counts;
  return `${binding.binding}: ${pass} pass, ${fail} fail, ${notObservable} not observable`;
}

function ruleLines(rule: RuleResult, ruleWidth: number): string[] {
  const prefix = `  ${LABEL[rule.status].padEnd(LABEL_WIDTH)}  ${rule.rule.padEnd(ruleWidth)}  `;
  const behavior = visible(rule.behavior);
  const room = Math.max(WIDTH - prefix.length, 30);
  // The list is for scanning: the full sentence is in the failure below and in --json.
  const lines = [prefix + (behavior.length > room ? `${behavior.slice(0, room - 1)}…` : behavior)];
  const pad = ' '.repeat(prefix.length);
  for (const reason of rule.notObservable ?? []) {
    lines.push(...wrap(visible(reason), room).map((line) => `${pad}${line}`));
  }
  return lines;
}

/** `text` in lines of at most `width` characters, broken at spaces (a longer word stays whole). */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return [...lines, line];
}

function bindingSection(binding: BindingReport): string[] {
  const ruleWidth = Math.max(0, ...binding.rules.map((r) => r.rule.length));
  return [summaryLine(binding), ...binding.rules.flatMap((r) => ruleLines(r, ruleWidth)), ''];
}

function exchangeLines(
  exchange: Exchange,
  index: number,
  count: number,
  limits: ClipLimits,
): string[] {
  const heading = `   exchange ${index + 1} of ${count}: ${visible(exchange.call)}`;
  // A note in the list rather than a call (the harness's "N earlier exchanges not kept").
  const note =
    (exchange.request === null || exchange.request === undefined) &&
    exchange.response === undefined &&
    exchange.error === undefined;
  if (note) return [heading];
  const lines = [
    `${heading} over ${visible(String(exchange.binding))}`,
    '     request sent:',
    indent(prettyJson(exchange.request, limits, JSON_WIDTH), '       '),
  ];
  if (exchange.response !== undefined) {
    lines.push(
      '     response received:',
      indent(prettyJson(exchange.response, limits, JSON_WIDTH), '       '),
    );
  }
  if (exchange.error !== undefined) {
    lines.push(
      '     error received:',
      indent(prettyJson(exchange.error, limits, JSON_WIDTH), '       '),
    );
  }
  if (exchange.response === undefined && exchange.error === undefined) {
    lines.push('     (no answer was received)');
  }
  return lines;
}

function message(text: string): string {
  return clipLines(clipText(visible(text), MESSAGE_LIMIT), MESSAGE_LINES);
}

/**
 * One failed case: what it checked, what went wrong, and every call it made
 * (also the body of a JUnit failure, with its own limits).
 */
export function failureLines(
  result: KitCaseResult,
  index: number,
  limits: ClipLimits = CONSOLE_LIMITS,
): string[] {
  const where =
    result.meta === undefined ? '' : `rule ${result.meta.rule} on ${result.meta.binding} · `;
  const lines = [`${index}) ${visible(result.name)}`, `   ${where}${result.file}`];
  if (result.errors.length === 0) lines.push('   (the case failed without an error message)');
  for (const error of result.errors) {
    lines.push(indent(message(error.message), '   '));
    if (error.diff !== undefined) lines.push(indent(message(error.diff), '     '));
  }
  const exchanges = result.meta?.exchanges ?? [];
  if (exchanges.length === 0) lines.push('   (no exchange was recorded)');
  const first = Math.max(0, exchanges.length - limits.maxExchanges);
  if (first > 0) {
    lines.push(
      `   (exchanges 1–${first} of ${exchanges.length} are not shown here; the JSON report (--json) has them all)`,
    );
  }
  exchanges.forEach((exchange, i) => {
    if (i >= first) lines.push(...exchangeLines(exchange, i, exchanges.length, limits));
  });
  if (result.console.length > 0) {
    lines.push(
      '   console output of the case:',
      indent(message(result.console.join('\n')), '     '),
    );
  }
  return [...lines, ''];
}

function verdictLine(report: KitReport): string {
  const failing = report.bindings
    .map((b) => ({ binding: b.binding, rules: b.rules.filter((r) => r.status === 'fail') }))
    .filter((b) => b.rules.length > 0);
  if (report.verdict === 'fail') {
    const count = failing.reduce((sum, b) => sum + b.rules.length, 0);
    const where = failing.map((b) => `${b.binding}: ${b.rules.map((r) => r.rule).join(', ')}`);
    const stray = report.unattributed.filter((c) => c.state === 'failed').length;
    const parts = [
      ...(count > 0 ? [`${plural(count, 'rule check')} failed (${where.join('; ')})`] : []),
      ...(stray > 0 ? [`${plural(stray, 'unattributed case')} failed`] : []),
    ];
    const incomplete =
      report.runErrors.length > 0 ? '; the run was also incomplete (see the run errors above)' : '';
    return `Verdict: FAIL: ${parts.join(', ')}${incomplete}`;
  }
  if (report.verdict === 'incomplete') {
    return 'Verdict: INCOMPLETE: no rule failed, but the run did not complete (see the run errors above)';
  }
  const pass = report.bindings.reduce((sum, b) => sum + b.counts.pass, 0);
  const unobserved = report.bindings.reduce((sum, b) => sum + b.counts.notObservable, 0);
  const on = report.bindings.map((b) => b.binding).join(', ');
  return `Verdict: PASS: ${plural(pass, 'rule check')} passed and none failed on ${on} (${unobserved} not observable)`;
}

/**
 * The report as a person reads it at the end of a run: per binding a summary
 * line and its rules, then every failure with its message and exchanges, the
 * errors that made the run incomplete, and the verdict.
 */
export function formatConsoleReport(report: KitReport): string {
  const lines: string[] = [];
  lines.push(
    `A2A task reminders conformance${report.cardUrl === undefined ? '' : `: ${visible(report.cardUrl)}`}`,
    '',
  );
  for (const binding of report.bindings) lines.push(...bindingSection(binding));

  const failures = [
    ...report.bindings.flatMap((b) => b.rules.flatMap((r) => r.failures)),
    ...report.unattributed.filter((c) => c.state === 'failed'),
  ];
  if (failures.length > 0) {
    lines.push(`Failures (${failures.length})`, '');
    failures.forEach((failure, i) => {
      lines.push(...failureLines(failure, i + 1));
    });
    lines.push(
      'Values are shortened where marked "[truncated: …]"; --json <file> keeps them whole.',
      '',
    );
  }
  if (report.unattributed.length > 0) {
    lines.push('Cases the kit could not attribute to a binding and rule:');
    for (const c of report.unattributed)
      lines.push(`  ${c.state.padEnd(7)}  ${visible(c.name)} (${c.file})`);
    lines.push('');
  }
  if (report.runErrors.length > 0) {
    lines.push('Run errors:');
    for (const error of report.runErrors) lines.push(indent(`- ${message(error)}`, '  '));
    if (report.vitestOutput !== undefined) {
      lines.push('  vitest printed:', indent(message(report.vitestOutput), '    '));
    }
    lines.push('');
  }
  lines.push(verdictLine(report));
  return `${lines.join('\n')}\n`;
}
