#!/usr/bin/env node
/**
 * `node apps/coordinator/scripts/turbo-build.mjs <package>...`: builds the
 * packages (and what they depend on) with turbo before a root npm script runs
 * their code (`npm run demo`, `worker`, `coordinator`, `fuzz`).
 *
 * Plain JavaScript, since it runs before anything is compiled. It prints to
 * stderr only, so a script's stdout stays its own: nothing when every task is
 * cached (a one-line CLI error stays one line, issue 11), each task's name as
 * it starts when something is built (a first `npm run demo` builds for a
 * minute or two and would otherwise be silent), and the failing tasks' output
 * when the build fails, exiting with turbo's code.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { TurboBuildLog } from './turbo-build-log.mjs';

const packages = process.argv.slice(2);
if (packages.length === 0) {
  console.error('usage: turbo-build.mjs <package>...');
  process.exit(2);
}
const root = fileURLToPath(new URL('../../../', import.meta.url));
const turbo = fileURLToPath(new URL('../../../node_modules/.bin/turbo', import.meta.url));
const args = ['run', 'build', ...packages.map((p) => `--filter=${p}`)];
// --json: one JSON object per line on stdout instead of the banner, the TUI and the summary.
const child = spawn(turbo, [...args, '--json', '--no-update-notifier'], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'pipe'],
});
const log = new TurboBuildLog((line) => console.error(line), packages);
createInterface({ input: child.stdout }).on('line', (line) => log.take(line));
let stderr = '';
child.stderr.on('data', (chunk) => {
  stderr += chunk;
});
child.once('error', (error) => {
  console.error(`cannot run turbo (${turbo}): ${error.message}`);
  process.exit(1);
});
child.once('close', (code, signal) => {
  const exitCode = code ?? 1;
  for (const line of log.finish(exitCode)) console.error(line);
  if (exitCode !== 0 && stderr.trim() !== '') console.error(stderr.trimEnd());
  if (signal !== null) console.error(`turbo was stopped by ${signal}`);
  process.exit(exitCode);
});
