import { readdir, readFile } from 'node:fs/promises';
import { machineBusyUs } from './cpu-gate.js';
import { processCpuUs } from './proc-cpu.js';

/**
 * Where a PostgreSQL process's CPU goes in the replica bench's breakdown
 * (README, Replicas): a backend of the bench's own database, a backend of
 * another database (other work on the machine), or the server's shared
 * processes (postmaster, WAL writer, checkpointer…), which the bench's
 * commits keep busy too.
 */
type PostgresRole = 'bench' | 'other' | 'shared';

/** `postgres: 15/main: <user> <database> <host>(<port>) <state>`: the title of a client backend. */
const BACKEND_TITLE = /^postgres: [^:]+: \S+ (\S+) (?:\S+\(\d+\)|\[local\])/;

/** Every PostgreSQL process of the machine with its role, from /proc (its title is its cmdline). */
async function postgresProcesses(database: string): Promise<Map<number, PostgresRole>> {
  const roles = new Map<number, PostgresRole>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if ((await readFile(`/proc/${entry}/comm`, 'utf8')).trim() !== 'postgres') continue;
      const title = (await readFile(`/proc/${entry}/cmdline`, 'utf8')).replaceAll('\0', ' ');
      const db = BACKEND_TITLE.exec(title)?.[1];
      roles.set(Number(entry), db === undefined ? 'shared' : db === database ? 'bench' : 'other');
    } catch {
      // The process ended while we looked: it has nothing left to count.
    }
  }
  return roles;
}

/** CPU used so far by each process of interest and by the whole machine. */
export interface CpuSnapshot {
  readonly wallMs: number;
  readonly machineUs: number;
  /** This process: the load driver. */
  readonly selfUs: number;
  readonly perPid: ReadonlyMap<number, number>;
  readonly postgres: ReadonlyMap<number, PostgresRole>;
}

/** `servers`: the bench's server pids; PostgreSQL's processes are found by `database` name. */
export async function cpuSnapshot(
  servers: readonly number[],
  database: string,
): Promise<CpuSnapshot> {
  const postgres = await postgresProcesses(database);
  const perPid = new Map<number, number>();
  for (const pid of [...servers, ...postgres.keys()]) {
    const us = await processCpuUs(pid).catch(() => undefined);
    if (us !== undefined) perPid.set(pid, us);
  }
  const self = process.cpuUsage();
  return {
    wallMs: performance.now(),
    machineUs: await machineBusyUs(),
    selfUs: self.user + self.system,
    perPid,
    postgres,
  };
}

/** Who used the CPU between two snapshots, each in % of one core. */
export interface CpuShares {
  /** Per server, in the order given. */
  readonly servers: number[];
  /** Backends of the bench's database. */
  readonly postgresBench: number;
  /** Postmaster, WAL writer, checkpointer and the like. */
  readonly postgresShared: number;
  /** This process, the closed-loop load driver. */
  readonly load: number;
  /** Everything else: other work on the machine (backends of other databases included). */
  readonly others: number;
  /** All of it: busy time of /proc/stat. */
  readonly machine: number;
}

export function cpuShares(
  from: CpuSnapshot,
  to: CpuSnapshot,
  servers: readonly number[],
): CpuShares {
  const pct = (us: number) => (100 * us) / ((to.wallMs - from.wallMs) * 1000);
  // A process born during the slice (a new pooled connection) counts whole.
  const used = (pid: number) =>
    Math.max(0, (to.perPid.get(pid) ?? 0) - (from.perPid.get(pid) ?? 0));
  const ofRole = (role: PostgresRole) =>
    [...to.postgres].filter(([, r]) => r === role).reduce((n, [pid]) => n + used(pid), 0);
  const serverUs = servers.map(used);
  const postgresBench = ofRole('bench');
  const postgresShared = ofRole('shared');
  const load = to.selfUs - from.selfUs;
  const machine = to.machineUs - from.machineUs;
  const ours = serverUs.reduce((a, b) => a + b, 0) + postgresBench + postgresShared + load;
  return {
    servers: serverUs.map(pct),
    postgresBench: pct(postgresBench),
    postgresShared: pct(postgresShared),
    load: pct(load),
    others: pct(Math.max(0, machine - ours)),
    machine: pct(machine),
  };
}
