import type { KitCaseResult } from './case-result.js';
import type { KitBinding } from './kit-meta.js';

/** A rule's outcome on one binding. */
export type RuleStatus = 'pass' | 'fail' | 'not observable';

/** One rule of the spec (R- or W-number) on one binding, over all its cases there. */
export interface RuleResult {
  /** `R13`, `W4`. */
  readonly rule: string;
  /** The behavior its requirements verify (several are joined with "; "). */
  readonly behavior: string;
  /** The requirement ids citing it. */
  readonly requirements: readonly string[];
  /** fail if any case failed; pass if at least one ran and all that ran passed; else not observable. */
  readonly status: RuleStatus;
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  /** The failed cases, with their errors and exchanges. */
  readonly failures: readonly KitCaseResult[];
  /** Why the rule could not be observed; set when `status` is not observable. */
  readonly notObservable?: readonly string[];
  /** Total time of its cases. */
  readonly durationMs: number;
}

export interface BindingReport {
  readonly binding: KitBinding;
  readonly rules: readonly RuleResult[];
  readonly counts: { readonly pass: number; readonly fail: number; readonly notObservable: number };
}

/**
 * pass: no rule failed and the run was complete; fail: a rule (or an
 * unattributed case) failed; incomplete: nothing failed, but the run cannot
 * vouch for the rules it did not reach (see `runErrors`).
 */
export type Verdict = 'pass' | 'fail' | 'incomplete';

export interface KitReport {
  readonly cardUrl?: string;
  readonly bindings: readonly BindingReport[];
  /** Cases whose binding or rule the kit could not tell (a harness outside kit mode, or a bug). */
  readonly unattributed: readonly KitCaseResult[];
  readonly runErrors: readonly string[];
  readonly vitestOutput?: string;
  readonly verdict: Verdict;
}
