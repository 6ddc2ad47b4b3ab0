import type { KitCaseResult } from './case-result.js';
import { clipText, JUNIT_LIMITS, visible } from './clip.js';
import { failureLines } from './console-report.js';
import type { BindingReport, KitReport, RuleResult } from './kit-report.js';

/**
 * Characters XML 1.0 cannot hold at all, not even as a character reference
 * (`&#1;` is not well-formed): C0 controls but tab, newline and carriage
 * return, lone surrogates, U+FFFE and U+FFFF. They are written as `\uXXXX`
 * text, so a CI parser never rejects the file over a byte the agent sent.
 */
function xmlChars(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    const allowed =
      code === 0x9 ||
      code === 0xa ||
      code === 0xd ||
      (code >= 0x20 && code <= 0xd7ff) ||
      (code >= 0xe000 && code <= 0xfffd) ||
      code >= 0x10000;
    out += allowed ? char : `\\u${code.toString(16).padStart(4, '0')}`;
  }
  return out;
}

/** Element text: `]]>` cannot occur once `>` is escaped. */
export function escapeXmlText(text: string): string {
  return xmlChars(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * An attribute value in double quotes. Tab, newline and carriage return are
 * written as references, since a parser turns them into spaces otherwise.
 */
export function escapeXmlAttribute(text: string): string {
  return escapeXmlText(text)
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(/\t/g, '&#9;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;');
}

function attributes(values: Record<string, string | number>): string {
  return Object.entries(values)
    .map(([name, value]) => ` ${name}="${escapeXmlAttribute(String(value))}"`)
    .join('');
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

/** One line of a message attribute: CI pages show it as the failure's title. */
function title(text: string): string {
  return clipText(visible(text.split('\n')[0] ?? ''), 300);
}

function failureElement(failures: readonly KitCaseResult[]): string {
  const first = failures[0]?.errors[0]?.message ?? 'the case failed';
  const message =
    failures.length > 1
      ? `${title(first)} (and ${failures.length - 1} more failed cases)`
      : title(first);
  const body = failures.flatMap((f, i) => failureLines(f, i + 1, JUNIT_LIMITS)).join('\n');
  return `<failure${attributes({ message, type: 'AssertionError' })}>${escapeXmlText(body)}</failure>`;
}

function ruleElement(binding: string, rule: RuleResult): string {
  const open = `<testcase${attributes({
    name: `${rule.rule} ${rule.behavior}`,
    classname: `a2a-reminders.${binding}`,
    time: seconds(rule.durationMs),
  })}`;
  if (rule.status === 'pass') return `${open}/>`;
  if (rule.status === 'fail') return `${open}>${failureElement(rule.failures)}</testcase>`;
  const reasons = (rule.notObservable ?? []).join('; ');
  return `${open}><skipped${attributes({ message: `not observable: ${reasons}` })}/></testcase>`;
}

function bindingSuite(binding: BindingReport, cardUrl: string | undefined): string {
  const time = binding.rules.reduce((sum, r) => sum + r.durationMs, 0);
  const head = `<testsuite${attributes({
    name: `a2a-reminders.${binding.binding}`,
    tests: binding.rules.length,
    failures: binding.counts.fail,
    errors: 0,
    skipped: binding.counts.notObservable,
    time: seconds(time),
  })}>`;
  const properties =
    cardUrl === undefined
      ? []
      : [
          `    <properties><property${attributes({ name: 'card-url', value: cardUrl })}/></properties>`,
        ];
  const rules = binding.rules.map((r) => `    ${ruleElement(binding.binding, r)}`);
  return [head, ...properties, ...rules, '  </testsuite>'].join('\n');
}

/**
 * What kept the run from being complete, and cases no rule could claim, as
 * a suite of its own: a CI page must not show green for a run that broke.
 */
function kitSuite(report: KitReport): string | undefined {
  const cases: string[] = [];
  const classname = 'a2a-reminders.kit';
  report.runErrors.forEach((error, i) => {
    const body =
      i === 0 && report.vitestOutput !== undefined
        ? `${error}\n\nvitest printed:\n${report.vitestOutput}`
        : error;
    cases.push(
      `<testcase${attributes({ name: `run error ${i + 1}`, classname, time: '0.000' })}><error${attributes({ message: title(error) })}>${escapeXmlText(clipText(body, 20_000))}</error></testcase>`,
    );
  });
  for (const c of report.unattributed.filter((u) => u.state === 'failed')) {
    cases.push(
      `<testcase${attributes({ name: c.name, classname, time: seconds(c.durationMs ?? 0) })}>${failureElement([c])}</testcase>`,
    );
  }
  if (cases.length === 0) return undefined;
  const failures = cases.length - report.runErrors.length;
  const head = `<testsuite${attributes({ name: classname, tests: cases.length, failures, errors: report.runErrors.length, skipped: 0, time: '0.000' })}>`;
  return [head, ...cases.map((c) => `    ${c}`), '  </testsuite>'].join('\n');
}

/**
 * The report as JUnit XML: one testsuite per binding, one testcase per rule
 * (a failure with the failed cases' messages and exchanges, or skipped when
 * not observable), and a `kit` suite for run errors.
 */
export function junitXml(report: KitReport): string {
  const suites = report.bindings.map((b) => bindingSuite(b, report.cardUrl));
  const kit = kitSuite(report);
  if (kit !== undefined) suites.push(kit);
  const tests = report.bindings.reduce((s, b) => s + b.rules.length, 0);
  const failures = report.bindings.reduce((s, b) => s + b.counts.fail, 0);
  const skipped = report.bindings.reduce((s, b) => s + b.counts.notObservable, 0);
  const time = report.bindings.reduce(
    (s, b) => s + b.rules.reduce((t, r) => t + r.durationMs, 0),
    0,
  );
  const strays = report.unattributed.filter((u) => u.state === 'failed').length;
  const root = `<testsuites${attributes({
    name: 'a2a-reminders conformance',
    tests: tests + report.runErrors.length + strays,
    failures: failures + strays,
    errors: report.runErrors.length,
    skipped,
    time: seconds(time),
  })}>`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    root,
    ...suites.map((s) => `  ${s}`),
    '</testsuites>',
    '',
  ].join('\n');
}
