#!/usr/bin/env node
import { FUZZ_USAGE, parseFuzzArgs } from './cli-args.js';
import { formatReport } from './report.js';
import { failures, runFuzz } from './run-fuzz.js';

// npm run fuzz: seeded, reproducible wire fuzzing of a real worker process (issue 8 §7).
let command: ReturnType<typeof parseFuzzArgs>;
try {
  command = parseFuzzArgs(process.argv.slice(2));
} catch (error) {
  console.error(`${(error as Error).message}\n\n${FUZZ_USAGE}`);
  process.exit(2);
}
if (command.kind === 'help') {
  console.log(FUZZ_USAGE);
  process.exit(0);
}
const { options } = command;
const reports = await runFuzz({ ...options, log: (line) => console.error(line) });
for (const line of formatReport(reports, options.seed)) console.log(line);
process.exitCode = reports.some((r) => failures(r) > 0) ? 1 : 0;
