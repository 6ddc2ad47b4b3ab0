#!/usr/bin/env node
import { CHAOS_USAGE, parseChaosArgs } from './cli-args.js';
import { formatReport } from './report.js';
import { failures, runChaos } from './run-chaos.js';

// npm run chaos: the fault matrix against real worker processes (spec R69–R74, R53).
let command: ReturnType<typeof parseChaosArgs>;
try {
  command = parseChaosArgs(process.argv.slice(2));
} catch (error) {
  console.error(`${(error as Error).message}\n\n${CHAOS_USAGE}`);
  process.exit(2);
}
if (command.kind === 'help') {
  console.log(CHAOS_USAGE);
  process.exit(0);
}
// Ctrl-C or a supervisor's stop: exit, so the exit hooks kill the workers, stop the cluster
// and unmount the file systems the run mounted.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => process.exit(130));
}
const started = Date.now();
const rows = await runChaos({ ...command.options, log: (line) => console.error(line) });
console.error(`chaos: ${Math.round((Date.now() - started) / 1000)} s in all`);
// The count line comes last, alone, for CI logs.
for (const line of formatReport(rows)) console.log(line);
process.exitCode = rows.some((r) => failures(r).length > 0) ? 1 : 0;
