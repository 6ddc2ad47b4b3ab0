import { parseCaseName } from './case-name.js';
import type { KitCaseResult, KitRun } from './case-result.js';
import type { KitBinding } from './kit-meta.js';
import { KIT_BINDINGS } from './kit-meta.js';
import type { BindingReport, KitReport, RuleResult, RuleStatus, Verdict } from './kit-report.js';
import type { KitRequirement } from './requirement-list.js';

/** The reason of a requirement with no case on a binding when the manifest gives none. */
export const NO_CASE_REASON = 'no case of this rule can be driven from outside the agent';

export interface AggregateOptions {
  /** The bindings checked: each is reported, even with no case on it. */
  readonly bindings: readonly KitBinding[];
  /** Every requirement, so a rule no case reached is still listed. */
  readonly requirements: readonly KitRequirement[];
  readonly cardUrl?: string;
}

/** A case placed on its binding, requirement and rule. */
interface AttributedCase {
  readonly binding: KitBinding;
  readonly requirement: string;
  readonly rule: string;
  readonly result: KitCaseResult;
}

/**
 * Where a case belongs: its `meta.kit`, or else its name and the manifest (a
 * case that failed before the harness set its meta still counts against its
 * rule). Undefined when neither says.
 */
function attribute(
  result: KitCaseResult,
  ruleOf: ReadonlyMap<string, string>,
): AttributedCase | undefined {
  if (result.meta !== undefined) {
    const { binding, requirement, rule } = result.meta;
    return { binding, requirement, rule, result };
  }
  const parsed = parseCaseName(result.name);
  const rule = parsed === undefined ? undefined : ruleOf.get(parsed.requirement);
  if (parsed === undefined || rule === undefined) return undefined;
  return { binding: parsed.binding, requirement: parsed.requirement, rule, result };
}

/** R-numbers, then W-numbers, each in numeric order; anything else last, by name. */
export function compareRules(a: string, b: string): number {
  const key = (rule: string): [number, number, string] => {
    const match = /^([RW])(\d+)$/.exec(rule);
    if (match === null) return [2, 0, rule];
    return [match[1] === 'R' ? 0 : 1, Number(match[2]), rule];
  };
  const [ka, kb] = [key(a), key(b)];
  return ka[0] - kb[0] || ka[1] - kb[1] || ka[2].localeCompare(kb[2]);
}

/**
 * Why a requirement has no case on a binding: the manifest's kit note; else,
 * for a binding outside its arms, the arms note (it does not apply there);
 * else the default.
 */
function noCaseReason(requirement: KitRequirement, binding: KitBinding): string {
  if (requirement.kitNote !== undefined) return requirement.kitNote;
  if (requirement.arms !== undefined && !requirement.arms.includes(binding)) {
    return `not verified on ${binding}${requirement.armsNote === undefined ? '' : `: ${requirement.armsNote}`}`;
  }
  return NO_CASE_REASON;
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

function ruleResult(
  rule: string,
  binding: KitBinding,
  requirements: readonly KitRequirement[],
  cases: readonly AttributedCase[],
): RuleResult {
  const results = cases.map((c) => c.result);
  const passed = results.filter((r) => r.state === 'passed').length;
  const failures = results.filter((r) => r.state === 'failed');
  const skipped = results.filter((r) => r.state === 'skipped');
  const status: RuleStatus = failures.length > 0 ? 'fail' : passed > 0 ? 'pass' : 'not observable';
  const ids = unique([...requirements.map((r) => r.id), ...cases.map((c) => c.requirement)]);
  const behavior =
    requirements.length > 0
      ? unique(requirements.map((r) => r.behavior)).join('; ')
      : unique(results.map((r) => parseCaseName(r.name)?.behavior ?? r.name)).join('; ');
  const reasons = () =>
    unique([
      ...skipped.map(
        (r) => r.meta?.notObservable ?? r.skipNote ?? 'the case was skipped without a reason',
      ),
      ...requirements
        .filter((r) => !cases.some((c) => c.requirement === r.id))
        .map((r) => noCaseReason(r, binding)),
    ]);
  return {
    rule,
    behavior,
    requirements: ids,
    status,
    passed,
    failed: failures.length,
    skipped: skipped.length,
    failures,
    ...(status === 'not observable' ? { notObservable: reasons() } : {}),
    durationMs: results.reduce((sum, r) => sum + (r.durationMs ?? 0), 0),
  };
}

function bindingReport(
  binding: KitBinding,
  requirements: readonly KitRequirement[],
  cases: readonly AttributedCase[],
): BindingReport {
  const here = cases.filter((c) => c.binding === binding);
  const rules = unique([...requirements.map((r) => r.rule), ...here.map((c) => c.rule)]).sort(
    compareRules,
  );
  const results = rules.map((rule) =>
    ruleResult(
      rule,
      binding,
      requirements.filter((r) => r.rule === rule),
      here.filter((c) => c.rule === rule),
    ),
  );
  const count = (status: RuleStatus) => results.filter((r) => r.status === status).length;
  return {
    binding,
    rules: results,
    counts: { pass: count('pass'), fail: count('fail'), notObservable: count('not observable') },
  };
}

/** Per binding, per rule: pass, fail or not observable, and the verdict of the run. */
export function aggregate(run: KitRun, options: AggregateOptions): KitReport {
  const ruleOf = new Map(options.requirements.map((r) => [r.id, r.rule]));
  const attributed: AttributedCase[] = [];
  const unattributed: KitCaseResult[] = [];
  for (const result of run.cases) {
    const placed = attribute(result, ruleOf);
    if (placed === undefined) unattributed.push(result);
    else attributed.push(placed);
  }
  // A binding a case ran on is reported even if it was not asked for, so no
  // failure goes unseen.
  const bindings = KIT_BINDINGS.filter(
    (b) => options.bindings.includes(b) || attributed.some((c) => c.binding === b),
  );
  const reports = bindings.map((b) => bindingReport(b, options.requirements, attributed));

  const runErrors = [...run.runErrors];
  if (unattributed.length > 0) {
    runErrors.push(
      `${unattributed.length} case(s) carry no kit metadata and no kit case name (is the harness in kit mode?)`,
    );
  }
  if (run.cases.length > 0 && !run.cases.some((c) => c.state !== 'skipped')) {
    runErrors.push('no case ran against the agent: every case was skipped');
  }
  const failed =
    reports.some((r) => r.counts.fail > 0) || unattributed.some((c) => c.state === 'failed');
  const verdict: Verdict = failed ? 'fail' : runErrors.length > 0 ? 'incomplete' : 'pass';
  return {
    ...(options.cardUrl === undefined ? {} : { cardUrl: options.cardUrl }),
    bindings: reports,
    unattributed,
    runErrors,
    ...(run.vitestOutput === undefined ? {} : { vitestOutput: run.vitestOutput }),
    verdict,
  };
}

/** The process exit code of a report: 0 only for a complete run with no failing rule. */
export function exitCodeOf(report: KitReport): 0 | 1 {
  return report.verdict === 'pass' ? 0 : 1;
}
