import { parseArgs } from 'node:util';
import type { Fault } from './faults.js';
import { ALL_FAULTS } from './faults.js';

export const CHAOS_USAGE = `Usage: npm run chaos -- [options]

Runs a fault matrix against real worker processes: on a PostgreSQL cluster of
its own behind a TCP proxy, three replicas through restarts, ended backends,
black-holed and cut connections; on a SQLite file, one worker through a lock
held by another process, a full disk, and a file system the kernel turns
read-only after an error (the worker restarted once it is checked and mounted
again). Each fault runs under a load of injects over JSON-RPC, REST and gRPC
on every replica.
Prints one row per fault and exits 1 if any row finds a lost or duplicated
reminder, a misordered stream, a dead process, an INTERNAL answer, a hung
call, a stuck task, or a replica that never served again.

Options:
  --store <name>      postgres or sqlite; repeatable (default: both)
  --fault <name>      run only this fault (its name in the table); repeatable
  --lease-ms <ms>     the PostgreSQL replicas' --lease-ms (default: 3000)
  --turn-ms <ms>      every worker's --turn-ms (default: 1000)
  --sqlite-busy-ms <ms>
                      the SQLite worker's --sqlite-busy-ms; the lock is held 2 s longer
                      (default: 2000)
  --deadline-ms <ms>  every call's deadline; an answer later is a hang (default: 30000)
  --worker <path>     the worker's main.js to start (default: apps/worker/dist/main.js)
  --log-dir <dir>     write every worker's output there, marked where each fault starts
  -h, --help          show this help

Faults: ${ALL_FAULTS.map((f) => `${f.store}: "${f.name}"`).join(', ')}`;

export interface ChaosCliOptions {
  readonly faults: readonly Fault[];
  readonly leaseMs: number;
  readonly turnMs: number;
  readonly sqliteBusyMs: number;
  readonly deadlineMs: number;
  readonly workerMain?: string;
  readonly logDir?: string;
}

export type ChaosCommand =
  | { readonly kind: 'run'; readonly options: ChaosCliOptions }
  | { readonly kind: 'help' };

function int(name: string, value: string | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min) {
    throw new Error(`${name} must be an integer of at least ${min}`);
  }
  return Number(value);
}

export function parseChaosArgs(argv: readonly string[]): ChaosCommand {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      store: { type: 'string', multiple: true },
      fault: { type: 'string', multiple: true },
      'lease-ms': { type: 'string' },
      'turn-ms': { type: 'string' },
      'sqlite-busy-ms': { type: 'string' },
      'deadline-ms': { type: 'string' },
      worker: { type: 'string' },
      'log-dir': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) return { kind: 'help' };
  const stores = values.store ?? ['postgres', 'sqlite'];
  for (const store of stores) {
    if (store !== 'postgres' && store !== 'sqlite') {
      throw new Error(`--store must be postgres or sqlite, not "${store}"`);
    }
  }
  for (const name of values.fault ?? []) {
    if (!ALL_FAULTS.some((f) => f.name === name)) {
      throw new Error(`unknown --fault "${name}"`);
    }
  }
  const faults = ALL_FAULTS.filter(
    (f) =>
      stores.includes(f.store) && (values.fault === undefined || values.fault.includes(f.name)),
  );
  if (faults.length === 0) throw new Error('no fault of the chosen stores was named');
  return {
    kind: 'run',
    options: {
      faults,
      // The worker takes 200 ms to an hour (cli-args.ts); a short one keeps the run short.
      leaseMs: int('--lease-ms', values['lease-ms'], 3_000, 200),
      turnMs: int('--turn-ms', values['turn-ms'], 1_000, 0),
      // Shorter than the worker's default (10 s), so the row is short; the lock outlasts it.
      sqliteBusyMs: int('--sqlite-busy-ms', values['sqlite-busy-ms'], 2_000, 0),
      deadlineMs: int('--deadline-ms', values['deadline-ms'], 30_000, 1),
      ...(values.worker === undefined ? {} : { workerMain: values.worker }),
      ...(values['log-dir'] === undefined ? {} : { logDir: values['log-dir'] }),
    },
  };
}
