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
 * Turbo gets --concurrency=2, --continue=dependencies-successful and
 * --summarize unless the user gave that flag. The exit code is turbo's, or 1
 * when turbo exited 0 but the summary shows a failure (130 if interrupted).
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const turbo = join(root, 'node_modules', '.bin', 'turbo');
const runsDir = join(root, '.turbo', 'runs');

const separator = process.argv.indexOf('--', 2);
const turboArgs = process.argv.slice(2, separator === -1 ? undefined : separator);
const vitestArgs = separator === -1 ? [] : process.argv.slice(separator + 1);

// `npm test -- --help` is turbo's help, not a test run: nothing to summarize.
if (turboArgs.includes('--help') || turboArgs.includes('-h')) {
  process.exit(await run(turbo, ['run', 'test', ...turboArgs]));
}

/**
 * This run's own report name (relative to each package's root; node_modules/
 * is git-ignored): a concurrent `npm test` writes its own, so neither reads
 * the other's totals. It also marks turbo's run summary as this run's: turbo
 * records the arguments it passed to each task.
 */
const runId = `${process.pid}-${Date.now()}`;
const resultsFile = join('node_modules', '.cache', `vitest-results-${runId}.json`);
const resultsArg = `--outputFile.json=${resultsFile}`;

/** Whether the user gave a flag (`--flag`, `--flag=value`, `--flag value`): turbo refuses one twice. */
const given = (flag) => turboArgs.some((arg) => arg === flag || arg.startsWith(`${flag}=`));
const defaults = [
  given('--concurrency') ? [] : ['--concurrency=2'],
  // Run every package whose build succeeded, so the closing line names every
  // failing package, not only the first one turbo saw fail.
  given('--continue') ? [] : ['--continue=dependencies-successful'],
  // The summary says which tasks failed; without it there is no closing line.
  given('--summarize') ? [] : ['--summarize'],
].flat();

const runsBefore = new Set(listRuns());
// Ctrl-C reaches turbo too (same process group): outlive it, so this run's
// files are still deleted. The run still fails: turbo can exit 0 when it is
// interrupted.
let interrupted = false;
process.on('SIGINT', () => {
  interrupted = true;
});
const turboExit = await run(turbo, [
  'run',
  'test',
  ...defaults,
  ...turboArgs,
  '--',
  '--reporter=default',
  '--reporter=json',
  resultsArg,
  ...vitestArgs,
]);
const exitCode = turboExit === 0 && interrupted ? 130 : turboExit;

const { summary, file: summaryFile, unreadable } = findRunSummary();
if (summary) {
  const { line, failed } = summarize(summary);
  console.log(line);
  process.exitCode = exitCode === 0 && failed ? 1 : exitCode;
} else {
  console.log(
    unreadable.length > 0
      ? `Tests: no readable turbo run summary for this run (unreadable: ${unreadable.join(', ')})`
      : 'Tests: turbo wrote no run summary (it failed before it ran the tests)',
  );
  process.exitCode = exitCode === 0 ? 1 : exitCode;
}

// Per-run names would otherwise pile up, one report per package and one
// summary per run. Reports are looked for in every workspace, not only the
// summary's, in case the summary was unreadable. (A summary this run could
// not read may be one a concurrent run is still writing, so it stays.)
for (const directory of workspaceDirs()) {
  rmSync(join(root, directory, resultsFile), { force: true });
}
if (summaryFile) rmSync(summaryFile, { force: true });

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

/**
 * A JSON file's content: undefined if there is no such file, `{ error }` if
 * it cannot be read or parsed (e.g. truncated: its writer was killed).
 */
function readJson(file) {
  try {
    return { json: JSON.parse(readFileSync(file, 'utf8')) };
  } catch (error) {
    return error.code === 'ENOENT' ? undefined : { error };
  }
}

/** The root package.json's `workspaces`, each a directory or `parent/*`. */
function workspaceDirs() {
  const { workspaces = [] } = readJson(join(root, 'package.json'))?.json ?? {};
  return workspaces.flatMap((pattern) => {
    if (!pattern.endsWith('/*')) return [pattern];
    const parent = pattern.slice(0, -'/*'.length);
    return readdirSync(join(root, parent)).map((name) => join(parent, name));
  });
}

function listRuns() {
  try {
    return readdirSync(runsDir).filter((name) => name.endsWith('.json'));
  } catch {
    return []; // no .turbo/runs yet
  }
}

/**
 * The summary turbo wrote for this run: a file new in .turbo/runs that names
 * this run's results argument. Another run's summary can be new as well.
 */
function findRunSummary() {
  const unreadable = [];
  for (const name of listRuns().filter((name) => !runsBefore.has(name))) {
    const file = join(runsDir, name);
    const read = readJson(file);
    if (!read?.json) {
      unreadable.push(name);
      continue;
    }
    // Each task's arguments name this run's results; a run that got no task
    // that far (interrupted) still has them in its command line.
    const { tasks, execution } = read.json;
    const ours =
      tasks?.some((task) => task.cliArguments?.includes(resultsArg)) ||
      execution?.command?.split(' ').includes(resultsArg);
    if (ours && Array.isArray(tasks)) return { summary: read.json, file, unreadable };
  }
  return { unreadable };
}

/**
 * Vitest's JSON report for a package directory: `{ results }`, `{}` if there
 * is none, `{ error }` if there is one but it is unreadable.
 */
function readResults(directory) {
  const read = readJson(join(root, directory, resultsFile));
  if (!read) return {};
  if (read.error) return { error: read.error };
  const results = read.json;
  return typeof results?.numPassedTests === 'number' && Array.isArray(results.testResults)
    ? { results }
    : { error: new Error('not a vitest JSON report') };
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
    const { results, error } = exit == null ? {} : readResults(task.directory);
    if (results) {
      totals.passed += results.numPassedTests;
      totals.failed += results.numFailedTests;
      totals.skipped += results.numPendingTests;
      totals.todo += results.numTodoTests;
    }
    // An unreadable report fails the package even if vitest exited 0: its
    // tests cannot be counted, so the run cannot be called a success.
    if (exit !== 0 || error) failing.push(`${task.package} (${failureOf(exit, results)})`);
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
  // No test task in the summary (interrupted, or no build succeeded) is no success.
  const failed = failing.length > 0 || testTasks.length === 0;
  const notes = [
    ...(failing.length > 0 ? [`failing: ${failing.join(', ')}`] : []),
    ...(testTasks.length === 0 ? ['no test task finished'] : []),
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
