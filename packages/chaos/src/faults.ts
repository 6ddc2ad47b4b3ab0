import { spawn } from 'node:child_process';
import { unlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fillFileSystem } from '@a2a-reminders/test-support';
import { sleep } from './calls.js';
import type { StoreKind } from './deployment.js';
import { atExit } from './exit-hooks.js';
import type { PostgresDeployment } from './postgres-deployment.js';
import type { SqliteDeployment, WorkerRestart } from './sqlite-deployment.js';
import type { Replica } from './worker-process.js';

/** The names the worker gives its PostgreSQL connections (`application_name`). */
export const MAIN_POOL = 'a2a-reminders main';
export const LEASE_POOL = 'a2a-reminders lease';
export const LISTEN_CONNECTION = 'a2a-reminders listen';

/** How a fault went: when it was lifted (`performance.now()`), and what it did. */
export interface FaultRun {
  readonly endedAt: number;
  readonly detail: string;
  /** Replicas the fault stopped and started again, each → the one now in its place. */
  readonly replaced?: ReadonlyMap<Replica, Replica>;
  /**
   * What went wrong in the fault's own steps once it was in place (a worker
   * that did not stop on SIGTERM, a file system e2fsck could not repair):
   * each fails the row.
   */
  readonly failures?: readonly string[];
}

/** What a fault may do besides breaking the store. */
export interface FaultContext {
  readonly log: (line: string) => void;
  /**
   * Takes the load off the workers and resolves once no call is in flight
   * (before a worker is stopped on purpose); the row resumes it, through the
   * replicas in {@link FaultRun.replaced}, once the fault returns.
   */
  pauseLoad(): Promise<void>;
}

/** Where a SQLite fault needs the database file: on a file system the run mounted for it. */
export type SqliteDisk = 'tmpfs' | 'ext4';

/** The fault could not be put in place; the row says why instead of claiming a pass. */
export class FaultNotInjected extends Error {
  override readonly name = 'FaultNotInjected';
}

interface FaultBase<S extends StoreKind, D> {
  /** Its name in the table and on the command line (`--fault`). */
  readonly name: string;
  readonly store: S;
  /** The file system the SQLite file must be on (one the run mounts). */
  readonly disk?: SqliteDisk;
  /** Applies the fault, holds it, and lifts it. */
  apply(deployment: D, context: FaultContext): Promise<FaultRun>;
}

export type PostgresFault = FaultBase<'postgres', PostgresDeployment>;
export type SqliteFault = FaultBase<'sqlite', SqliteDeployment>;
export type Fault = PostgresFault | SqliteFault;

/** How long the main pool stays black-holed: a few seconds, shorter than a statement's deadline. */
const MAIN_BLACK_HOLE_MS = 4_000;
/** How long the disk stays full or read-only. */
const DISK_FAULT_MS = 8_000;
/**
 * How much longer than the worker's busy timeout the lock holder keeps the
 * file locked: calls that wait for it answer UNAVAILABLE rather than get it.
 */
const LOCK_PAST_BUSY_MS = 2_000;

const lifted = (detail: string): FaultRun => ({ endedAt: performance.now(), detail });

export const POSTGRES_FAULTS: readonly PostgresFault[] = [
  {
    name: 'restart fast',
    store: 'postgres',
    async apply({ cluster }) {
      // Rolls back open transactions and disconnects every client, then starts again.
      await cluster.restart('fast');
      return lifted('pg_ctl stop -m fast, then start');
    },
  },
  {
    name: 'restart immediate',
    store: 'postgres',
    async apply({ cluster }) {
      // A crash on purpose: no clean disconnect, crash recovery at start.
      await cluster.restart('immediate');
      return lifted('pg_ctl stop -m immediate, then start');
    },
  },
  {
    name: 'terminate backends',
    store: 'postgres',
    async apply({ cluster }) {
      const ended = await cluster.terminateBackends();
      return lifted(`pg_terminate_backend on ${ended} client backends`);
    },
  },
  {
    name: 'black-hole lease pool',
    store: 'postgres',
    async apply({ proxy, leaseMs }) {
      // Longer than a lease: every replica's heartbeats fail for a whole lease, so each
      // stops owning its tasks (R71) and a reaper ends them once the pool is back (R53).
      const holdMs = 2 * leaseMs;
      const open = proxy.blackHole({ applicationName: LEASE_POOL });
      try {
        await sleep(holdMs);
      } finally {
        proxy.heal();
      }
      return lifted(
        `${open} open lease connections and every new one black-holed for ${holdMs} ms`,
      );
    },
  },
  {
    name: 'black-hole main pool',
    store: 'postgres',
    async apply({ proxy }) {
      const open = proxy.blackHole({ applicationName: MAIN_POOL });
      try {
        await sleep(MAIN_BLACK_HOLE_MS);
      } finally {
        proxy.heal();
      }
      return lifted(
        `${open} open main-pool connections and every new one black-holed for ${MAIN_BLACK_HOLE_MS} ms`,
      );
    },
  },
  {
    name: 'cut LISTEN',
    store: 'postgres',
    async apply({ proxy }) {
      const cut = proxy.cut({ applicationName: LISTEN_CONNECTION });
      if (cut === 0) throw new FaultNotInjected('no LISTEN connection was open to cut');
      return lifted(`${cut} LISTEN connections reset`);
    },
  },
];

export const SQLITE_FAULTS: readonly SqliteFault[] = [
  {
    name: 'file locked',
    store: 'sqlite',
    async apply({ file, busyMs }, { log }) {
      const held = await holdExclusiveLock(file, busyMs + LOCK_PAST_BUSY_MS, log);
      return { endedAt: held.releasedAt, detail: `BEGIN EXCLUSIVE held ${held.detail}` };
    },
  },
  {
    name: 'disk full',
    store: 'sqlite',
    disk: 'tmpfs',
    async apply({ tmpfs }) {
      if (tmpfs === undefined) throw new FaultNotInjected('the file is not on a tmpfs');
      const filler = fillFileSystem(tmpfs.dir);
      try {
        await sleep(DISK_FAULT_MS);
      } finally {
        unlinkSync(filler.path);
      }
      return lifted(`tmpfs filled (${filler.bytes} bytes of filler) for ${DISK_FAULT_MS} ms`);
    },
  },
  {
    name: 'read-only fs',
    store: 'sqlite',
    disk: 'ext4',
    async apply(deployment, { log, pauseLoad }) {
      const { ext4 } = deployment;
      if (ext4 === undefined) throw new FaultNotInjected('the file is not on an ext4 of its own');
      // A tmpfs cannot be remounted read-only while the worker holds its files open for
      // writing (EBUSY): an error on an ext4 mounted errors=remount-ro is how a file system
      // turns read-only under a running process.
      ext4.raiseError('a2a-reminders chaos: read-only fs');
      const probe = ext4.writable();
      if (probe !== 'EROFS') {
        throw new FaultNotInjected(`${ext4.device} is not read-only after the error: ${probe}`);
      }
      log(`  ${ext4.device} read-only; held ${DISK_FAULT_MS} ms, then the worker restarted`);
      await sleep(DISK_FAULT_MS);
      // It stays read-only until unmounted: the recovery is an operator's. The worker is
      // taken out of the load, stopped (R73), the file system checked and mounted again, and
      // the worker started on the same file.
      await pauseLoad();
      const failures: string[] = [];
      let endedAt: number | undefined;
      let fsckStatus: number | null = null;
      const held = `ext4 on ${ext4.device} read-only (errors=remount-ro) for ${DISK_FAULT_MS} ms`;
      let restart: WorkerRestart;
      try {
        restart = await deployment.restartWorker(() => {
          const fsck = ext4.unmountAndCheck();
          fsckStatus = fsck.status;
          // 0: clean, 1: errors corrected (the aborted journal); more: see e2fsck(8).
          if (fsck.status === null || fsck.status > 1) {
            const output = `${fsck.stdout}${fsck.stderr}`.trim();
            failures.push(`e2fsck -f -y ${ext4.device} exited ${fsck.status}: ${output}`);
          }
          ext4.mount();
          endedAt = performance.now();
        });
      } catch (error) {
        // The fault was in place: a recovery that cannot be carried out fails the row, and
        // the load goes on against whatever serves now.
        failures.push(`the recovery stopped: ${(error as Error).message}`);
        return { endedAt: endedAt ?? performance.now(), detail: held, failures };
      }
      if (!restart.stoppedCleanly) {
        failures.push(`the worker did not stop cleanly on SIGTERM: ${restart.stopped}`);
      }
      return {
        endedAt: endedAt ?? performance.now(),
        detail:
          `${held}; the worker stopped on SIGTERM (${restart.stopped}), the file system ` +
          `unmounted, e2fsck -f -y exited ${fsckStatus}, mounted again, the worker started on ` +
          `the same file${restart.recovered === undefined ? '' : ` (${restart.recovered})`}`,
        replaced: restart.replaced,
        failures,
      };
    },
  },
];

export const ALL_FAULTS: readonly Fault[] = [...POSTGRES_FAULTS, ...SQLITE_FAULTS];

/**
 * Another process takes the file's write lock (`BEGIN EXCLUSIVE`, which in
 * WAL mode keeps writers out and lets readers in) and keeps it `holdMs`.
 * Resolves once it committed, with that moment.
 */
async function holdExclusiveLock(
  file: string,
  holdMs: number,
  log: (line: string) => void,
): Promise<{ releasedAt: number; detail: string }> {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  // CommonJS through -e, so the lock holder needs no file of its own in src/ or dist/.
  const script = `
    const Database = require(process.argv[1]);
    const db = new Database(process.argv[2], { timeout: 60000 });
    db.exec('BEGIN EXCLUSIVE');
    process.stdout.write('LOCKED\\n');
    setTimeout(() => {
      db.exec('COMMIT');
      db.close();
      process.stdout.write('RELEASED\\n');
    }, Number(process.argv[3]));
  `;
  const child = spawn(process.execPath, ['-e', script, driver, file, String(holdMs)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const forget = atExit(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  try {
    let lockedAt = 0;
    const releasedAt = await new Promise<number>((resolve, reject) => {
      // A hang guard: taking the lock waits for the worker's write in progress, at most its
      // busy timeout; holding it is holdMs.
      const timer = setTimeout(
        () => reject(new FaultNotInjected(`the lock holder did not finish: ${stderr}`)),
        holdMs + 120_000,
      );
      createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
        if (line === 'LOCKED') {
          lockedAt = performance.now();
          log(`  lock taken; held ${holdMs} ms`);
        }
        if (line === 'RELEASED') {
          clearTimeout(timer);
          resolve(performance.now());
        }
      });
      // 'close', not 'exit': the RELEASED line is read before it.
      child.once('close', (code) => {
        clearTimeout(timer);
        reject(new FaultNotInjected(`the lock holder exited (${code}) early: ${stderr}`));
      });
    });
    return { releasedAt, detail: `${Math.round(releasedAt - lockedAt)} ms by another process` };
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    forget();
  }
}
