import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { aggregate, exitCodeOf } from './aggregate.js';
import { CardCheckError, checkAgentCard } from './card-check.js';
import type { KitCliOptions } from './cli-args.js';
import { KIT_USAGE, parseKitArgs, UsageError } from './cli-args.js';
import { formatConsoleReport } from './console-report.js';
import { junitXml } from './junit.js';
import type { KitReport } from './kit-report.js';
import { redact, secretsOf } from './redact.js';
import type { KitRequirement } from './requirement-list.js';
import { manifestRequirements } from './requirement-list.js';
import type { RunKitOptions } from './run-kit.js';
import { runKit } from './run-kit.js';

const NAME = 'a2a-reminders-conformance';

/** Where the CLI writes and what it reads, so tests can run it in process. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Relative --junit and --json paths are resolved against it. */
  readonly cwd: string;
}

/**
 * For the runner's own tests: run fixture files instead of the scenarios,
 * against fixture requirements. Never set by the bin.
 */
export interface CliOverrides {
  readonly run?: Pick<RunKitOptions, 'include' | 'root' | 'configFile'>;
  readonly requirements?: readonly KitRequirement[];
}

async function writeOutput(path: string, text: string, io: CliIo): Promise<void> {
  const file = resolve(io.cwd, path);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text);
}

async function writeOutputs(
  options: KitCliOptions,
  report: KitReport,
  io: CliIo,
): Promise<boolean> {
  const outputs: [string | undefined, () => string][] = [
    [options.junit, () => junitXml(report)],
    [options.json, () => `${JSON.stringify(report, null, 2)}\n`],
  ];
  let written = true;
  for (const [path, text] of outputs) {
    if (path === undefined) continue;
    try {
      await writeOutput(path, text(), io);
    } catch (error) {
      io.stderr(`${NAME}: cannot write ${path}: ${(error as Error).message}\n`);
      written = false;
    }
  }
  return written;
}

/**
 * The whole CLI: reads the arguments, checks the card, runs the kit on the
 * bindings the card serves (of those asked), prints the report and writes
 * the asked files. Returns the exit code: 0 no rule failed, 1 a rule failed
 * or the run was incomplete, 2 a usage error, an unusable card or an
 * output file that could not be written.
 */
export async function runCli(
  argv: readonly string[],
  io: CliIo,
  overrides: CliOverrides = {},
): Promise<number> {
  let options: KitCliOptions;
  try {
    const command = parseKitArgs(argv, io.env);
    if (command.kind === 'help') {
      io.stdout(`${KIT_USAGE}\n`);
      return 0;
    }
    options = command.options;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`${NAME}: ${error.message}\n\n${KIT_USAGE}\n`);
    return 2;
  }

  let card: Awaited<ReturnType<typeof checkAgentCard>>;
  try {
    card = await checkAgentCard(options.cardUrl, {
      ...(options.bindings === undefined ? {} : { bindings: options.bindings }),
      headers: options.headers,
    });
  } catch (error) {
    if (!(error instanceof CardCheckError)) throw error;
    io.stderr(`${NAME}: ${error.message}\n`);
    return 2;
  }
  const skipped =
    card.notServed.length === 0 ? '' : `; not served by the card: ${card.notServed.join(', ')}`;
  io.stderr(`Checking ${card.agentName} on ${card.bindings.join(', ')}${skipped}\n`);

  const run = await runKit({
    ...overrides.run,
    target: { cardUrl: options.cardUrl, bindings: card.bindings, headers: options.headers },
    onModuleEnd: ({ file, passed, failed, skipped: unobserved }) => {
      io.stderr(`  ${file}: ${passed} passed, ${failed} failed, ${unobserved} not observable\n`);
    },
  });
  const report = redact(
    aggregate(run, {
      bindings: card.bindings,
      requirements: overrides.requirements ?? manifestRequirements(),
      cardUrl: options.cardUrl,
    }),
    secretsOf(options.headers),
  );
  io.stdout(`\n${formatConsoleReport(report)}`);
  const written = await writeOutputs(options, report, io);
  return written ? exitCodeOf(report) : 2;
}
