import { stripVTControlCharacters } from 'node:util';
import type { Reporter, SerializedError, TestCase, TestModule, TestSuite } from 'vitest/node';
import type { KitCaseError, KitCaseResult, KitRun } from './case-result.js';
import { isKitCaseMeta } from './kit-meta.js';

type ConsoleLog = Parameters<NonNullable<Reporter['onUserConsoleLog']>>[0];

/** Counts of one scenario file, once all its cases have run. */
export interface ModuleProgress {
  readonly file: string;
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
}

function errorOf(error: SerializedError): KitCaseError {
  // Workers may colour messages and diffs for a terminal; the reports are
  // read in files and CI logs too.
  const diff = typeof error.diff === 'string' ? stripVTControlCharacters(error.diff) : undefined;
  return {
    message: stripVTControlCharacters(error.message ?? String(error)),
    ...(diff === undefined || diff === '' ? {} : { diff }),
  };
}

function describeError(where: string, error: SerializedError): string {
  const { message } = errorOf(error);
  const name = typeof error.name === 'string' && error.name !== '' ? `${error.name}: ` : '';
  return `${where}: ${name}${message}`;
}

/**
 * The kit's only vitest reporter: it prints nothing and keeps every case's
 * name, state, `meta.kit` and errors for the report (aggregate.ts), and
 * everything that makes the run incomplete as run errors.
 */
export class KitCaseCollector implements Reporter {
  // Without their console lines: a case's last lines may reach the reporter
  // after its result, so result() joins them.
  readonly #cases = new Map<string, Omit<KitCaseResult, 'console'>>();
  readonly #console = new Map<string, string[]>();
  readonly #runErrors: string[] = [];
  readonly #onModuleEnd: ((progress: ModuleProgress) => void) | undefined;
  #ended = false;

  constructor(onModuleEnd?: (progress: ModuleProgress) => void) {
    this.#onModuleEnd = onModuleEnd;
  }

  /** The run as collected; `runErrors` says so when vitest never finished it. */
  result(): KitRun {
    const runErrors = [...this.#runErrors];
    if (!this.#ended) runErrors.push('vitest did not finish the run (see its output above)');
    const cases = [...this.#cases].map(([id, recorded]) => ({
      ...recorded,
      console: this.#console.get(id) ?? [],
    }));
    return { cases, runErrors };
  }

  onUserConsoleLog(log: ConsoleLog): void {
    if (log.taskId === undefined) return;
    const lines = this.#console.get(log.taskId) ?? [];
    lines.push(`${log.type}: ${stripVTControlCharacters(log.content).trimEnd()}`);
    this.#console.set(log.taskId, lines);
  }

  onTestCaseResult(testCase: TestCase): void {
    this.#record(testCase);
  }

  onTestModuleEnd(testModule: TestModule): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const testCase of testModule.children.allTests()) {
      const state = this.#record(testCase)?.state;
      if (state !== undefined) counts[state] += 1;
    }
    this.#onModuleEnd?.({ file: testModule.relativeModuleId, ...counts });
  }

  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
    reason: 'passed' | 'interrupted' | 'failed',
  ): void {
    this.#ended = true;
    if (testModules.length === 0) this.#runErrors.push('no scenario file was found to run');
    for (const testModule of testModules) {
      // A case the run never reported (skipped at collection, or cut short).
      for (const testCase of testModule.children.allTests()) this.#record(testCase);
      const suites: (TestModule | TestSuite)[] = [testModule, ...testModule.children.allSuites()];
      for (const suite of suites) {
        const where =
          suite.type === 'module'
            ? suite.relativeModuleId
            : `${suite.module.relativeModuleId} > ${suite.fullName}`;
        for (const error of suite.errors()) this.#runErrors.push(describeError(where, error));
      }
    }
    for (const error of unhandledErrors) {
      this.#runErrors.push(describeError('error outside any case', error));
    }
    if (reason === 'interrupted') this.#runErrors.push('the run was interrupted');
  }

  #record(testCase: TestCase): Omit<KitCaseResult, 'console'> | undefined {
    const known = this.#cases.get(testCase.id);
    if (known !== undefined) return known;
    const result = testCase.result();
    if (result.state === 'pending') return undefined;
    const meta = testCase.meta().kit;
    if (meta !== undefined && !isKitCaseMeta(meta)) {
      this.#runErrors.push(`${testCase.name}: meta.kit does not have the kit's shape`);
    }
    const duration = testCase.diagnostic()?.duration;
    const recorded: Omit<KitCaseResult, 'console'> = {
      name: testCase.name,
      file: testCase.module.relativeModuleId,
      state: result.state,
      ...(isKitCaseMeta(meta) ? { meta } : {}),
      errors: (result.errors ?? []).map(errorOf),
      ...(result.state === 'skipped' && result.note !== undefined ? { skipNote: result.note } : {}),
      ...(duration === undefined ? {} : { durationMs: duration }),
    };
    this.#cases.set(testCase.id, recorded);
    return recorded;
  }
}
