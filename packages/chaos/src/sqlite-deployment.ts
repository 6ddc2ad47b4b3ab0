import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Ext4FileSystem, MountedTmpfs } from '@a2a-reminders/test-support';
import { mountExt4, mountTmpfs } from '@a2a-reminders/test-support';
import Database from 'better-sqlite3';
import type { Deployment, OpenTask } from './deployment.js';
import { OPEN_STATES } from './deployment.js';
import { atExit } from './exit-hooks.js';
import type { SqliteDisk } from './faults.js';
import { FaultNotInjected } from './faults.js';
import type { Replica } from './worker-process.js';
import { startReplica } from './worker-process.js';

export interface SqliteDeploymentOptions {
  /**
   * Put the file on a file system the run mounts: a tmpfs (the full-disk
   * fault) or an ext4 image on a loop device, mounted errors=remount-ro
   * (the read-only fault). Either is `diskBytes` large.
   */
  readonly disk: SqliteDisk | undefined;
  readonly diskBytes: number;
  /** The worker's `--sqlite-sync` (its default, `normal`, when not given). */
  readonly sync?: 'normal' | 'full';
  readonly turnMs: number;
  /** The worker's `--sqlite-busy-ms`: how long a call waits for another process's lock (R69). */
  readonly busyMs: number;
  readonly workerMain?: string;
  readonly log: (line: string) => void;
}

/** How {@link SqliteDeployment.restartWorker} went. */
export interface WorkerRestart {
  /** How the stopped worker ended (`exit code 0, signal null` for a clean stop). */
  readonly stopped: string;
  /** Whether it stopped by itself on SIGTERM with exit code 0 (R73). */
  readonly stoppedCleanly: boolean;
  /** The stopped replica → the one started in its place. */
  readonly replaced: ReadonlyMap<Replica, Replica>;
  /** The new worker's RECOVERED line (tasks a previous run left open, ended FAILED), if any. */
  readonly recovered: string | undefined;
}

/** One worker on a SQLite file (one worker per file: spec §14), and the file's place. */
export interface SqliteDeployment extends Deployment {
  readonly store: 'sqlite';
  /** The database file. */
  readonly file: string;
  /** The tmpfs the file lives on, when there is one. */
  readonly tmpfs: MountedTmpfs | undefined;
  /** The ext4 file system the file lives on, when there is one. */
  readonly ext4: Ext4FileSystem | undefined;
  /** The worker's busy timeout (`--sqlite-busy-ms`). */
  readonly busyMs: number;
  /**
   * Stops the worker (SIGTERM, SIGKILL past a grace), runs `between` while
   * no worker has the file open, and starts a worker with the same flags on
   * the same file.
   */
  restartWorker(between: () => void | Promise<void>): Promise<WorkerRestart>;
}

/** How long our own reads of the file wait for a writer's lock (WAL readers never do). */
const READ_BUSY_MS = 10_000;

/**
 * Starts one worker on a fresh SQLite file in a temporary directory, on a
 * file system of the run's own when asked (removed at close, and at exit
 * however the run ends). Throws FaultNotInjected when that file system
 * cannot be made here (no loop device, no e2fsprogs).
 */
export async function startSqliteDeployment(
  options: SqliteDeploymentOptions,
): Promise<SqliteDeployment> {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-reminders-chaos-'));
  // Registered before the mount, so at exit it runs after the unmount (hooks run last first).
  const forgetDir = atExit(() => rmSync(dir, { recursive: true, force: true }));
  let tmpfs: MountedTmpfs | undefined;
  let ext4: Ext4FileSystem | undefined;
  let forgetDisk: () => void = () => {};
  const removeDisk = () => {
    tmpfs?.remove();
    ext4?.remove();
    forgetDisk();
  };
  const replicas: Replica[] = [];
  try {
    let dataDir = join(dir, 'data');
    mkdirSync(dataDir);
    if (options.disk === 'tmpfs') {
      tmpfs = mountTmpfs({ size: options.diskBytes, dir: dataDir, source: 'a2a-reminders-chaos' });
      const mounted = tmpfs;
      forgetDisk = atExit(() => mounted.remove());
    } else if (options.disk === 'ext4') {
      const made = mountExt4({ sizeBytes: options.diskBytes, prefix: 'a2a-reminders-chaos-ext4-' });
      if (typeof made === 'string') throw new FaultNotInjected(`no ext4 for the file: ${made}`);
      ext4 = made;
      forgetDisk = atExit(() => made.remove());
      dataDir = made.dir;
    }
    const file = join(dataDir, 'chaos.sqlite');
    const args = [
      '--store',
      `sqlite:${file}`,
      '--turn-ms',
      String(options.turnMs),
      '--turns',
      '1000',
      '--sqlite-busy-ms',
      String(options.busyMs),
      ...(options.sync === undefined ? [] : ['--sqlite-sync', options.sync]),
    ];
    const everStarted: Replica[] = [];
    const start = async () => {
      const replica = await startReplica('S', args, {
        cwd: dir,
        ...(options.workerMain === undefined ? {} : { main: options.workerMain }),
      });
      everStarted.push(replica);
      return replica;
    };
    replicas.push(await start());
    const read = <T>(use: (db: Database.Database) => T): T => {
      const db = new Database(file, {
        readonly: true,
        fileMustExist: true,
        timeout: READ_BUSY_MS,
      });
      try {
        return use(db);
      } finally {
        db.close();
      }
    };
    return {
      store: 'sqlite',
      file,
      tmpfs,
      ext4,
      busyMs: options.busyMs,
      replicas,
      started: everStarted,
      // R72: a save that fails for the store's sake is tried again for up to 10 s.
      stuckBoundMs: 10_000,
      async ensureAlive() {
        const replica = replicas[0];
        if (replica === undefined || replica.alive()) return [];
        const note = `the worker had exited (${replica.process.exit()}); restarted`;
        options.log(note);
        await replica.stop();
        replicas[0] = await start();
        return [note];
      },
      async restartWorker(between) {
        const old = replicas[0];
        if (old === undefined) throw new Error('no worker to restart');
        await old.stop();
        const stopped = old.process.exit() ?? 'still running';
        options.log(`  worker stopped: ${stopped}`);
        await between();
        const next = await start();
        replicas[0] = next;
        options.log(`  worker started again on ${file}`);
        return {
          stopped,
          stoppedCleanly: old.process.exitedCleanly(),
          replaced: new Map([[old, next]]),
          recovered: next.process.stdout.all().find((line) => line.startsWith('RECOVERED ')),
        };
      },
      openTasks: async () =>
        read((db) =>
          db
            .prepare<unknown[], { id: string; status_state: string; status_last_updated: number }>(
              `select id, status_state, status_last_updated from tasks
               where status_state in (${OPEN_STATES.map(() => '?').join(', ')})`,
            )
            .all(...OPEN_STATES)
            .map(
              (r): OpenTask => ({
                id: r.id,
                state: r.status_state,
                updatedMs: Number(r.status_last_updated),
              }),
            ),
        ),
      leases: async () => [],
      // The event log serves replicas only (R52): with one worker on a file it stays empty.
      eventLog: async () => undefined,
      async close() {
        await Promise.allSettled(replicas.map((r) => r.stop()));
        removeDisk();
        rmSync(dir, { recursive: true, force: true });
        forgetDir();
      },
    };
  } catch (error) {
    await Promise.allSettled(replicas.map((r) => r.stop()));
    removeDisk();
    rmSync(dir, { recursive: true, force: true });
    forgetDir();
    throw error;
  }
}
