import type { KitCaseMeta } from './kit-meta.js';

/** How a case ended; vitest's `pending` never reaches the report (the run is over). */
export type KitCaseState = 'passed' | 'failed' | 'skipped';

/** One error a failed case threw, as vitest serialized it, without terminal colours. */
export interface KitCaseError {
  readonly message: string;
  /** The expected/received diff of an assertion, when there is one. */
  readonly diff?: string;
}

/** One vitest case of a kit run, as the collecting reporter saw it. */
export interface KitCaseResult {
  /** The full case name, `[binding] id (variant): behavior`. */
  readonly name: string;
  /** The scenario file, relative to the package. */
  readonly file: string;
  readonly state: KitCaseState;
  /** `task.meta.kit`, when the case set a well-formed one. */
  readonly meta?: KitCaseMeta;
  readonly errors: readonly KitCaseError[];
  /** The note of `ctx.skip(note)`, for a skipped case. */
  readonly skipNote?: string;
  readonly durationMs?: number;
  /** What the case wrote to the console, in order; kept for failures. */
  readonly console: readonly string[];
}

/** Everything one vitest run of the kit produced. */
export interface KitRun {
  readonly cases: readonly KitCaseResult[];
  /**
   * What kept the run from being complete: a scenario file that failed to
   * load, an error outside any case, an interrupted run, no files at all.
   * A rule of such a file would otherwise read as "not observable".
   */
  readonly runErrors: readonly string[];
  /** What vitest itself printed, kept when the run has errors (it may say why). */
  readonly vitestOutput?: string;
}
