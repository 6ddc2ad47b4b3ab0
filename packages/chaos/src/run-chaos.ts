import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { messageOf } from './calls.js';
import {
  endTasks,
  findStuck,
  settleAfterCancel,
  TaskHistory,
  taskOutcomes,
  verify,
} from './checks.js';
import type { Deployment, StoreKind } from './deployment.js';
import type { Fault, FaultContext, FaultRun, PostgresFault, SqliteFault } from './faults.js';
import { FaultNotInjected } from './faults.js';
import { InjectLoad } from './inject-load.js';
import { startPostgresDeployment } from './postgres-deployment.js';
import type { SqliteDeployment, SqliteDeploymentOptions } from './sqlite-deployment.js';
import { startSqliteDeployment } from './sqlite-deployment.js';
import type { Replica } from './worker-process.js';

export interface ChaosOptions {
  /** The faults to run, in order; each store's deployment starts only if one of its faults runs. */
  readonly faults: readonly Fault[];
  /** `--lease-ms` of the PostgreSQL replicas (R53). */
  readonly leaseMs: number;
  /** `--turn-ms` of every worker: tasks run long, a turn at a time. */
  readonly turnMs: number;
  /** The SQLite worker's `--sqlite-busy-ms` (R69); the lock is held 2 s longer. */
  readonly sqliteBusyMs: number;
  /** Every call's deadline: past it the call is a hang. */
  readonly deadlineMs: number;
  /** The worker's main.js (default: the built example worker). */
  readonly workerMain?: string;
  /** Writes every worker's whole output here, marked where each row starts. */
  readonly logDir?: string;
  /** Progress, on stderr for the CLI. */
  readonly log: (line: string) => void;
}

/** One fault on one store: what the load saw, and what the checks found. */
export interface ChaosRow {
  readonly store: StoreKind;
  readonly fault: string;
  /** What the fault did, or why it could not be put in place. */
  detail: string;
  injected: boolean;
  processes: number;
  alive: number;
  acked: number;
  lost: string[];
  purged: number;
  duplicates: string[];
  misordered: string[];
  /** Reminder rpc errors by code (INTERNAL among them, if any). */
  errors: Map<string, number>;
  errorSamples: Map<string, string>;
  hung: string[];
  /** Per replica × binding, ms from the fault's end to its first acknowledged inject. */
  recoveryMs: number[];
  /** Replica × binding lanes that never had an inject acknowledged after the fault's end. */
  unrecovered: string[];
  stuck: string[];
  /** Tasks whose execution runs but whose stored status stopped moving on. */
  frozen: string[];
  /** Checks that could not be made (a listing or a log read that failed): the row is unverified. */
  unchecked: string[];
  /** Steps of the fault itself that failed once it was in place (a worker that did not stop). */
  faultFailures: string[];
  /** Everything else worth reading: the row's own failures, stock SDK errors, restarts. */
  notes: string[];
  /** The workers' stderr during the row, when the row failed. */
  logs: string[];
}

/** Why a row failed, one phrase per failing check; empty for a pass. */
export function failures(row: ChaosRow): string[] {
  const out: string[] = [];
  if (!row.injected) out.push(`fault not injected: ${row.detail}`);
  if (row.alive < row.processes) out.push(`${row.processes - row.alive} dead process(es)`);
  if (row.lost.length > 0) out.push(`${row.lost.length} lost`);
  if (row.duplicates.length > 0) out.push(`${row.duplicates.length} duplicate(s)`);
  if (row.misordered.length > 0) out.push(`${row.misordered.length} misordered stream(s)`);
  const internal = row.errors.get('INTERNAL') ?? 0;
  if (internal > 0) out.push(`${internal} INTERNAL`);
  const untyped = (row.errors.get('UNTYPED') ?? 0) + (row.errors.get('UNREACHABLE') ?? 0);
  if (untyped > 0) out.push(`${untyped} untyped or unreachable`);
  if (row.hung.length > 0) out.push(`${row.hung.length} hung`);
  if (row.stuck.length > 0) out.push(`${row.stuck.length} stuck`);
  if (row.frozen.length > 0) out.push(`${row.frozen.length} frozen`);
  if (row.unrecovered.length > 0) out.push(`${row.unrecovered.length} lane(s) never recovered`);
  if (row.unchecked.length > 0) out.push(`${row.unchecked.length} check(s) not made`);
  if (row.faultFailures.length > 0) {
    out.push(`${row.faultFailures.length} step(s) of the fault failed`);
  }
  return out;
}

/** Tasks per replica: a few, each with its stream (R52), on every replica. */
const TASKS_PER_REPLICA = { postgres: 2, sqlite: 3 } as const;
/** A lane's pause between calls: about 20 injects a second in all, a light load on two cores. */
const PAUSE_MS = 400;
/** Under R48's 128 retained final records per task: nothing acknowledged is ever purged. */
const MAX_INJECTS_PER_TASK = 100;
/** Bounds on a row's loops and waits; hang guards, never judgements of speed. */
const WAIT_MS = 90_000;
const MAX_CALLS_PER_LANE = 1_000;
const MAX_TASKS_PER_ROW = 40;
/** Successes per lane before the fault and after its end. */
const WARM_SUCCESSES = 2;
/** Slack past R72's bound for ending a stuck task's two steps on a busy machine. */
const STUCK_SLACK_MS = 20_000;
/**
 * The file system the run mounts for the SQLite file (a tmpfs, or an ext4
 * image): room for the database and its WAL, small enough to fill fast.
 */
const DISK_BYTES = 64 * 1024 * 1024;
/** Lines of each worker's stderr kept per failing row. */
const LOG_LINES = 40;

/**
 * Runs every fault in turn, each store's on one deployment of its own (the
 * SQLite faults that need the file on an ext4 on another); one row per fault.
 */
export async function runChaos(options: ChaosOptions): Promise<ChaosRow[]> {
  const rows: ChaosRow[] = [];
  const postgres = options.faults.filter((f): f is PostgresFault => f.store === 'postgres');
  const sqlite = options.faults.filter((f): f is SqliteFault => f.store === 'sqlite');
  if (postgres.length > 0) {
    options.log(
      `PostgreSQL: starting a cluster, a proxy and 3 replicas (lease ${options.leaseMs} ms)`,
    );
    const deployment = await startPostgresDeployment({
      replicaNames: ['A', 'B', 'C'],
      leaseMs: options.leaseMs,
      turnMs: options.turnMs,
      log: options.log,
      ...(options.workerMain === undefined ? {} : { workerMain: options.workerMain }),
    });
    await runFaults(deployment, 'postgres', postgres, options, rows);
  }
  const onTmpfs = sqlite.filter((f) => f.disk !== 'ext4');
  const onExt4 = sqlite.filter((f) => f.disk === 'ext4');
  if (onTmpfs.length > 0) {
    const tmpfs = onTmpfs.some((f) => f.disk === 'tmpfs');
    options.log(`SQLite: starting a worker on a fresh file${tmpfs ? ' on a tmpfs' : ''}`);
    await runSqlite({ disk: tmpfs ? 'tmpfs' : undefined }, 'sqlite', onTmpfs, options, rows);
  }
  if (onExt4.length > 0) {
    options.log('SQLite: starting a worker (--sqlite-sync full) on a fresh file on an ext4');
    // A disk that fails under the worker keeps only what was synced: with the default
    // (normal) the last commits acknowledged may sit in the page cache and be gone once the
    // file system is checked and mounted again. `full` syncs each commit before it is
    // acknowledged, so the row asks that nothing acknowledged be lost across the failure.
    await runSqlite({ disk: 'ext4', sync: 'full' }, 'sqlite-ext4', onExt4, options, rows);
  }
  return rows;
}

/** Starts a SQLite deployment and runs `faults` on it; NOT INJECTED rows if its disk cannot be made. */
async function runSqlite(
  deploymentOptions: Pick<SqliteDeploymentOptions, 'disk' | 'sync'>,
  label: string,
  faults: readonly SqliteFault[],
  options: ChaosOptions,
  rows: ChaosRow[],
): Promise<void> {
  let deployment: SqliteDeployment;
  try {
    deployment = await startSqliteDeployment({
      ...deploymentOptions,
      diskBytes: DISK_BYTES,
      turnMs: options.turnMs,
      busyMs: options.sqliteBusyMs,
      log: options.log,
      ...(options.workerMain === undefined ? {} : { workerMain: options.workerMain }),
    });
  } catch (error) {
    if (!(error instanceof FaultNotInjected)) throw error;
    options.log(`  ${error.message}`);
    for (const fault of faults) {
      rows.push({ ...emptyRow('sqlite', fault.name, 0), detail: error.message });
    }
    return;
  }
  await runFaults(deployment, label, faults, options, rows);
}

/** Runs `faults` in turn on `deployment`, then closes it (and writes its logs when asked). */
async function runFaults<D extends Deployment>(
  deployment: D,
  label: string,
  faults: readonly {
    readonly name: string;
    apply(d: D, context: FaultContext): Promise<FaultRun>;
  }[],
  options: ChaosOptions,
  rows: ChaosRow[],
): Promise<void> {
  const marks: RowMark[] = [];
  const history = new TaskHistory();
  try {
    for (const fault of faults) {
      rows.push(await runRow(deployment, fault, rows.length, options, marks, history));
    }
  } finally {
    await deployment.close();
    if (options.logDir !== undefined) writeLogs(options.logDir, label, deployment, marks);
  }
}

/** A row before anything ran: not injected, every count zero. */
function emptyRow(store: StoreKind, fault: string, processes: number): ChaosRow {
  return {
    store,
    fault,
    detail: '',
    injected: false,
    processes,
    alive: 0,
    acked: 0,
    lost: [],
    purged: 0,
    duplicates: [],
    misordered: [],
    errors: new Map(),
    errorSamples: new Map(),
    hung: [],
    recoveryMs: [],
    unrecovered: [],
    stuck: [],
    frozen: [],
    unchecked: [],
    faultFailures: [],
    notes: [],
    logs: [],
  };
}

/**
 * One row: the load on, the fault applied and lifted, recovery measured,
 * the load off; then stuck tasks looked for, the tasks cancelled, and every
 * acknowledged reminder and every stream checked.
 */
async function runRow<D extends Deployment>(
  deployment: D,
  fault: { readonly name: string; apply(d: D, context: FaultContext): Promise<FaultRun> },
  index: number,
  options: ChaosOptions,
  rowMarks: RowMark[],
  history: TaskHistory,
): Promise<ChaosRow> {
  const { log } = options;
  log(`[${deployment.store}] ${fault.name}`);
  const row = emptyRow(deployment.store, fault.name, deployment.replicas.length);
  row.notes.push(...(await deployment.ensureAlive()));
  const replicas = [...deployment.replicas];
  const marks = replicas.map((r) => r.process.stderr.mark());
  for (const replica of replicas) {
    rowMarks.push({ replica, label: fault.name, line: replica.process.stderr.mark() });
  }
  const load = new InjectLoad(replicas, {
    tasksPerReplica: TASKS_PER_REPLICA[deployment.store],
    pauseMs: PAUSE_MS,
    deadlineMs: options.deadlineMs,
    maxInjectsPerTask: MAX_INJECTS_PER_TASK,
    maxCallsPerLane: MAX_CALLS_PER_LANE,
    maxTasks: MAX_TASKS_PER_ROW,
    prefix: `r${index}`,
  });
  try {
    await load.start(WAIT_MS);
    await load.warm(WARM_SUCCESSES, WAIT_MS);
    const faultStart = performance.now();
    load.faultStarted(faultStart);
    try {
      const run = await fault.apply(deployment, { log, pauseLoad: () => load.pause() });
      row.injected = true;
      row.detail = run.detail;
      row.faultFailures = [...(run.failures ?? [])];
      // The end first: a call sent once the load resumes counts toward recovery.
      load.faultEnded(run.endedAt);
      load.resume(run.replaced);
      log(`  fault lifted after ${Math.round(run.endedAt - faultStart)} ms: ${run.detail}`);
    } catch (error) {
      if (!(error instanceof FaultNotInjected)) throw error;
      row.detail = error.message;
      load.resume();
      log(`  fault not injected: ${error.message}`);
    }
    if (row.injected) await load.recovered(WARM_SUCCESSES, WAIT_MS);
  } catch (error) {
    if (!row.injected && row.detail === '') row.detail = `not reached: ${messageOf(error)}`;
    row.notes.push(`the row stopped early: ${messageOf(error)}`);
    log(`  the row stopped early: ${messageOf(error)}`);
  } finally {
    await load.stop();
  }
  if (row.injected) {
    row.recoveryMs = load.recoveryTimes();
    row.unrecovered = load.unrecovered();
  }
  log(`  load stopped: ${load.acked.size} acknowledged; looking for stuck tasks`);
  const found = await findStuck(deployment, load, history, STUCK_SLACK_MS);
  if (found.leftOver.length > 0) {
    row.notes.push(
      `still open from an earlier row (not counted again): ${found.leftOver.join(', ')}`,
    );
  }
  row.notes.push(...(await endTasks(deployment, load, history, options.deadlineMs)));
  const unended = await settleAfterCancel(deployment, load, history, STUCK_SLACK_MS);
  // One entry per task: a task stuck or frozen before the cancel that did not end after it
  // either is stuck, once.
  const unendedIds = new Set(unended.map((u) => u.id));
  const stuckIds = new Set(found.stuck.map((f) => f.id));
  row.stuck = [
    ...found.stuck.map((f) =>
      unendedIds.has(f.id) ? `${f.detail}; still open after CancelTask` : f.detail,
    ),
    ...unended.filter((u) => !stuckIds.has(u.id)).map((u) => u.detail),
  ];
  row.frozen = found.frozen.filter((f) => !unendedIds.has(f.id)).map((f) => f.detail);
  for (const f of [...found.stuck, ...found.frozen, ...unended]) history.report(f.id);
  for (const task of load.tasks) {
    history.follow(task.id, `the row "${fault.name}" on ${task.replica.name}`);
  }
  row.notes.push(
    `${load.tasks.length} tasks followed, ended: ${await taskOutcomes(load, options.deadlineMs)}`,
  );
  log('  tasks ended; listing every acknowledged reminder on every replica');
  const verdict = await verify(deployment, load, index, options.deadlineMs);
  row.acked = load.acked.size;
  row.lost = verdict.lost;
  row.purged = verdict.purged.length;
  row.duplicates = verdict.duplicates;
  row.misordered = verdict.misordered;
  row.unchecked = verdict.problems;
  row.errors = load.errors;
  row.errorSamples = load.errorSamples;
  row.hung = load.hangs.map(
    (h) =>
      `${h.what}: no answer within ${options.deadlineMs} ms, sent ${load.sinceFault(h.startedAt)}`,
  );
  for (const [name, count] of load.sdkErrors) {
    row.notes.push(
      `stock SDK calls failed ${count}× with ${name}, e.g. ${load.sdkErrorSamples.get(name)}`,
    );
  }
  // A replica the fault restarted counts as the process started in its place.
  row.alive = load.replicas.filter((r) => r.alive()).length;
  for (const replica of load.replicas) {
    if (!replica.alive()) row.notes.push(`${replica.name} exited: ${replica.process.exit()}`);
  }
  const restarted = load.replicas.filter((r) => !replicas.includes(r));
  for (const replica of restarted) {
    rowMarks.push({ replica, label: `${fault.name} (started again)`, line: 0 });
  }
  if (failures(row).length > 0) {
    for (const [i, replica] of [...replicas, ...restarted].entries()) {
      const lines = replica.process.stderr.since(marks[i] ?? 0);
      if (lines.length === 0) continue;
      row.logs.push(
        `--- ${replica.name} stderr during the row (last ${LOG_LINES} of ${lines.length} lines)`,
      );
      row.logs.push(...lines.slice(-LOG_LINES));
    }
  }
  log(`  ${failures(row).join(', ') || 'passed'}`);
  return row;
}

/** Where a row started in a replica's stderr. */
interface RowMark {
  readonly replica: Replica;
  readonly label: string;
  readonly line: number;
}

/** Each replica's stdout and stderr in a file of its own, a line where each row started. */
function writeLogs(
  dir: string,
  label: string,
  deployment: Deployment,
  marks: readonly RowMark[],
): void {
  mkdirSync(dir, { recursive: true });
  for (const [i, replica] of deployment.started.entries()) {
    const base = join(dir, `${label}-${replica.name}-${i}`);
    writeFileSync(`${base}.stdout.log`, `${replica.process.stdout.all().join('\n')}\n`);
    const lines: string[] = [];
    const mine = marks.filter((m) => m.replica === replica);
    const all = replica.process.stderr.all();
    const first = replica.process.stderr.mark() - all.length;
    for (const [n, line] of all.entries()) {
      for (const m of mine) if (m.line === first + n) lines.push(`=== chaos row: ${m.label}`);
      lines.push(line);
    }
    for (const m of mine) if (m.line >= first + all.length) lines.push(`=== chaos row: ${m.label}`);
    writeFileSync(`${base}.stderr.log`, `${lines.join('\n')}\n`);
  }
}
