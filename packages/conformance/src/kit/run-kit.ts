import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { startVitest } from 'vitest/node';
import type { ModuleProgress } from './case-collector.js';
import { KitCaseCollector } from './case-collector.js';
import type { KitRun } from './case-result.js';
import type { KitTarget } from './kit-env.js';
import { kitEnv } from './kit-env.js';

/**
 * The package directory: two levels above this file both as source
 * (src/kit/run-kit.ts) and compiled (dist/kit/run-kit.js), so the bin finds
 * the scenario sources and the kit config next to its own dist/.
 */
export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface RunKitOptions {
  /**
   * The agent under test, handed to the harness as the A2A_REMINDERS_KIT_*
   * variables. Absent, the run has only the caller's environment (the
   * runner's own tests, whose fixture files need no agent).
   */
  readonly target?: KitTarget;
  /** Globs of the files to run, relative to `root`; default the kit config's (src/scenarios). */
  readonly include?: readonly string[];
  /** Default: this package's directory. */
  readonly root?: string;
  /** Default: `vitest.kit.config.ts` in `root`. */
  readonly configFile?: string;
  /** Told after each file's cases have all run, for progress lines. */
  readonly onModuleEnd?: (progress: ModuleProgress) => void;
}

/** The cap on what is kept of vitest's own output: enough for an error, not a flood. */
const OUTPUT_LIMIT = 20_000;

/** A sink for vitest's logger, which writes even with no reporters when something breaks. */
class CapturedOutput extends Writable {
  text = '';

  override _write(chunk: Buffer | string, _encoding: string, done: () => void): void {
    if (this.text.length < OUTPUT_LIMIT) this.text += chunk.toString();
    done();
  }
}

/**
 * Runs the kit's vitest config programmatically and returns every case as
 * the collecting reporter saw it. vitest prints nothing (its reporters are
 * replaced and its logger captured): the caller reports. The process's exit
 * code is left as it was, since vitest sets it when cases fail.
 */
export async function runKit(options: RunKitOptions = {}): Promise<KitRun> {
  const root = options.root ?? PACKAGE_ROOT;
  const collector = new KitCaseCollector(options.onModuleEnd);
  const output = new CapturedOutput();
  const exitCode = process.exitCode;
  try {
    await startVitest(
      'test',
      [],
      {
        root,
        config: options.configFile ?? join(root, 'vitest.kit.config.ts'),
        reporters: [collector],
        run: true,
        watch: false,
        // No files is a run error here (case-collector.ts), not a silent pass.
        passWithNoTests: true,
        ...(options.include === undefined ? {} : { include: [...options.include] }),
        ...(options.target === undefined ? {} : { env: kitEnv(options.target) }),
      },
      {},
      { stdout: output, stderr: output },
    );
  } catch (error) {
    output.text += `\n${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
  } finally {
    process.exitCode = exitCode;
  }
  const run = collector.result();
  const vitestOutput = output.text.trim();
  return vitestOutput === '' || run.runErrors.length === 0 ? run : { ...run, vitestOutput };
}
