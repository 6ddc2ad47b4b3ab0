#!/usr/bin/env node
/**
 * `npm test`: every package's vitest suite through turbo, then ONE closing
 * line over all of them (issue 11): passed, failed and skipped tests, and the
 * packages that failed, by name. `.ci/run` runs `npm test` and so prints the
 * same line.
 *
 * The totals come from vitest's own JSON reporter (one file per package,
 * `--outputFile.json` is resolved against the package's root), not from
 * scraping its text. Which packages failed comes from turbo's run summary
 * (`--summarize`): a package can fail with every test passed (an unhandled
 * error, a crash, a build that failed so its tests never ran), and only the
 * task's exit code says so.
 *
 * Usage: node scripts/test-summary.mjs [turbo args…] [-- vitest args…]
 *   e.g. npm test -- --filter=@a2a-reminders/core -- -t 'R39'
 * The exit code is turbo's: nonzero when any task failed.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const runsDir = join(root, '.turbo', 'runs');
/** Relative to each package's root; node_modules/ is git-ignored. */
const resultsFile = join('node_modules', '.cache', 'vitest-results.json');

const separator = process.argv.indexOf('--', 2);
const turboArgs = process.argv.slice(2, separator === -1 ? undefined : separator);
const vitestArgs = separator === -1 ? [] : process.argv.slice(separator + 1);

const startedAt = Date.now();
const runsBefore = new Set(listRuns());
const exitCode = await run(join(root, 'node_modules', '.bin', 'turbo'), [
  'run',
  'test',
  '--concurrency=2',
  // Run every package whose build succeeded, so the closing line names every
  // failing package, not only the first one turbo saw fail.
  '--continue=dependencies-successful',
  '--summarize',
  ...turboArgs,
  '--',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${resultsFile}`,
  ...vitestArgs,
]);

const summary = readRunSummary();
if (summary) {
  const { line, failed } = summarize(summary);
  console.log(line);
  process.exitCode = exitCode === 0 && failed ? 1 : exitCode;
} else {
  console.log('Tests: turbo wrote no run summary (it failed before it ran the tests)');
  process.exitCode = exitCode === 0 ? 1 : exitCode;
}

/** Runs a command with the terminal as its output; resolves to its exit code. */
function run(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: 'inherit' });
    child.on('error', (error) => {
      console.error(`${command}: ${error.message}`);
      resolve(1);
    });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

function listRuns() {
  return existsSync(runsDir) ? readdirSync(runsDir).filter((name) => name.endsWith('.json')) : [];
}

/**
 * The summary turbo wrote for this run: a file new in .turbo/runs, with test
 * tasks, the latest one if another turbo run wrote one meanwhile.
 */
function readRunSummary() {
  const fresh = listRuns()
    .filter((name) => !runsBefore.has(name))
    .map((name) => JSON.parse(readFileSync(join(runsDir, name), 'utf8')))
    .filter((candidate) => candidate.tasks?.some((task) => task.task === 'test'))
    .sort((a, b) => (a.execution?.startTime ?? 0) - (b.execution?.startTime ?? 0));
  return fresh.at(-1);
}

/** Vitest's JSON report for a package directory, if this run wrote one. */
function readResults(directory) {
  const file = join(root, directory, resultsFile);
  if (!existsSync(file) || statSync(file).mtimeMs < startedAt) return undefined;
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** The closing line, and whether any package failed. */
function summarize(summary) {
  const totals = { passed: 0, failed: 0, skipped: 0, todo: 0 };
  const failing = [];
  /** Packages that passed without a JSON report: their tests are not in the totals. */
  const uncounted = [];
  const testTasks = summary.tasks.filter((task) => task.task === 'test');
  for (const task of testTasks) {
    const exit = task.execution?.exitCode;
    const results = exit == null ? undefined : readResults(task.directory);
    if (results) {
      totals.passed += results.numPassedTests;
      totals.failed += results.numFailedTests;
      totals.skipped += results.numPendingTests;
      totals.todo += results.numTodoTests;
    }
    if (exit !== 0) failing.push(`${task.package} (${failureOf(exit, results)})`);
    else if (!results) uncounted.push(task.package);
  }
  // A failed build or generate step is named as a task (`pkg#build`): the
  // test tasks behind it never ran and are not in turbo's summary at all.
  for (const task of summary.tasks) {
    const exit = task.execution?.exitCode;
    if (task.task !== 'test' && exit != null && exit !== 0) failing.push(task.taskId);
  }
  const counts = [
    `${totals.passed} passed`,
    `${totals.failed} failed`,
    `${totals.skipped} skipped`,
    ...(totals.todo > 0 ? [`${totals.todo} todo`] : []),
  ].join(', ');
  const packages = `${testTasks.length} package${testTasks.length === 1 ? '' : 's'}`;
  const failed = failing.length > 0;
  const notes = [
    ...(failed ? [`failing: ${failing.join(', ')}`] : []),
    ...(uncounted.length > 0 ? [`not counted (no vitest report): ${uncounted.join(', ')}`] : []),
  ];
  return { line: [`Tests: ${counts} in ${packages}`, ...notes].join('; '), failed };
}

/** Why a package's test task failed, in a few words. */
function failureOf(exit, results) {
  if (exit == null) return 'not run';
  if (!results) return `exit code ${exit}, no test results`;
  if (results.numFailedTests > 0) return `${results.numFailedTests} failed`;
  const brokenFiles = results.testResults.filter((file) => file.status === 'failed').length;
  if (brokenFiles > 0) return `${brokenFiles} file${brokenFiles === 1 ? '' : 's'} failed to run`;
  return `exit code ${exit}, e.g. an unhandled error`;
}
