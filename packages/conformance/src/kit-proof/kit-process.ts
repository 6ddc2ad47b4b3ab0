import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KitReport } from '../kit/kit-report.js';

/** The package's bin, as `npx a2a-reminders-conformance` runs it. */
export const KIT_BIN = fileURLToPath(
  new URL('../../bin/a2a-reminders-conformance.js', import.meta.url),
);

export interface KitProcessRun {
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** The `--json` report. */
  readonly report: KitReport;
}

/**
 * Runs the kit as its users do: the bin in a process of its own, against
 * `cardUrl`, with `--json` into a scratch folder that is removed afterwards.
 */
export async function runKitProcess(
  cardUrl: string,
  args: readonly string[] = [],
): Promise<KitProcessRun> {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-reminders-kit-'));
  try {
    const json = join(dir, 'report.json');
    const child = spawn(
      process.execPath,
      [KIT_BIN, '--card-url', cardUrl, '--json', json, ...args],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        // The kit's own variables come from its flags only.
        env: Object.fromEntries(
          Object.entries(process.env).filter(
            ([k]) => !k.startsWith('A2A_REMINDERS_KIT_') && !k.startsWith('VITEST'),
          ),
        ),
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exitCode = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', resolve);
    });
    let report: KitReport;
    try {
      report = JSON.parse(await readFile(json, 'utf8')) as KitReport;
    } catch (error) {
      throw new Error(`the kit wrote no report (exit ${exitCode}):\n${stderr}\n${stdout}`, {
        cause: error,
      });
    }
    return { exitCode, stdout, stderr, report };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `binding rule` of every failed rule, sorted: what a verdict test compares. */
export function failedRules(report: KitReport): string[] {
  return report.bindings
    .flatMap((b) => b.rules.filter((r) => r.status === 'fail').map((r) => `${b.binding} ${r.rule}`))
    .sort();
}

/** How many rules passed on each binding. */
export function passCounts(report: KitReport): Record<string, number> {
  return Object.fromEntries(report.bindings.map((b) => [b.binding, b.counts.pass]));
}
