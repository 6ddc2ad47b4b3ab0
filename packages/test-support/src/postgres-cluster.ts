import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { appendFile, chown, mkdtemp } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** How `pg_ctl stop` ends the server: `fast` rolls back and disconnects, `immediate` crashes it on purpose. */
export type PostgresStopMode = 'fast' | 'immediate';

/** Which backends `terminateBackends` ends; every given field must match. */
export interface BackendFilter {
  readonly applicationName?: string;
  readonly database?: string;
}

export interface PostgresClusterOptions {
  /**
   * Deadline of each call, in ms (default 60 s). It only bounds a failure:
   * every call returns as soon as its work is done.
   */
  readonly deadlineMs?: number;
  /** More postgresql.conf settings, after (so over) the light defaults. */
  readonly settings?: Readonly<Record<string, string | number | boolean>>;
  /** Where initdb and pg_ctl are (default Debian's PostgreSQL 15). */
  readonly binDir?: string;
  /** The OS user the server runs as when we are root (default `postgres`). */
  readonly osUser?: string;
}

/** A PostgreSQL cluster of its own, in a temporary directory, on a free loopback port. */
export interface PostgresCluster {
  readonly host: '127.0.0.1';
  readonly port: number;
  /** The temporary directory: data directory, server log and unix socket. */
  readonly dir: string;
  readonly logFile: string;
  /** `postgres://postgres@127.0.0.1:PORT/<database>` (trust authentication). */
  url(database?: string): string;
  /** Creates an empty database; returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server with `mode`, then starts it on the same port, ready for connections. */
  restart(mode: PostgresStopMode): Promise<void>;
  /** Stops the server (nothing to do when it is stopped). */
  stop(mode: PostgresStopMode): Promise<void>;
  /** Starts the server and waits until it accepts connections (nothing to do when it runs). */
  start(): Promise<void>;
  /**
   * Terminates every other client backend that matches `filter` (all of them
   * without one), waiting until each is gone; returns how many it ended.
   */
  terminateBackends(filter?: BackendFilter): Promise<number>;
  /** The last lines of the server log, for a failing test's message. */
  logTail(lines?: number): string;
  /** Stops the server (immediate) and removes its directory; safe to call twice. */
  destroy(): Promise<void>;
}

const HOST = '127.0.0.1';
const DEFAULT_BIN_DIR = '/usr/lib/postgresql/15/bin';
const DEFAULT_DEADLINE_MS = 60_000;
const LOG_TAIL_LINES = 20;
const ADMIN_APPLICATION_NAME = 'test-support cluster admin';
/** A port another process takes between our probe and the server's bind is retried this often. */
const PORT_ATTEMPTS = 3;

// Light on memory and disk: tests start several clusters next to the shared one. A commit is
// acknowledged only once its WAL is written (synchronous_commit on), so a restart, immediate
// included, keeps every acknowledged commit: a store test that counts lost writes (R69) must
// not see the cluster's own. fsync may stay off: an immediate stop is a process crash, not an
// OS crash, and the kernel keeps what was written.
const DEFAULT_SETTINGS: Readonly<Record<string, string | number | boolean>> = {
  listen_addresses: HOST,
  max_connections: 100,
  shared_buffers: '16MB',
  fsync: false,
  synchronous_commit: 'on',
  full_page_writes: false,
  max_wal_size: '64MB',
};

/** Clusters still running, stopped at process exit if a test run forgot or crashed. */
const live = new Set<{ dataDir: string; dir: string }>();
let exitHookInstalled = false;

/**
 * Starts a fresh PostgreSQL cluster (initdb, then pg_ctl start) in a new
 * temporary directory, on a free port of 127.0.0.1, trust authentication for
 * user `postgres`. As root it runs the binaries as `osUser` through
 * `runuser`, since PostgreSQL refuses to run as root. Call `destroy()` after.
 */
export async function startPostgresCluster(
  options: PostgresClusterOptions = {},
): Promise<PostgresCluster> {
  const deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  const binDir = options.binDir ?? DEFAULT_BIN_DIR;
  const asRoot = process.getuid?.() === 0;
  const osUser = options.osUser ?? 'postgres';

  const dir = await mkdtemp(join(tmpdir(), 'a2a-reminders-pg-'));
  const dataDir = join(dir, 'data');
  const logFile = join(dir, 'server.log');
  const entry = { dataDir, dir };
  let port = 0;

  const logTail = (lines = LOG_TAIL_LINES): string => {
    if (!existsSync(logFile)) return '(no server log yet)';
    const all = readFileSync(logFile, 'utf8').trimEnd().split('\n');
    return all.slice(-lines).join('\n');
  };

  const fail = (what: string, detail: string): Error =>
    new Error(
      `PostgreSQL cluster in ${dir} (port ${port}): ${what}${detail ? `\n${detail.trimEnd()}` : ''}\n` +
        `last lines of ${logFile}:\n${indent(logTail())}`,
    );

  /** Runs a PostgreSQL binary, as `osUser` when we are root, in `dir` (a cwd that user can read). */
  const pgBin = (name: string, args: readonly string[], deadline: number) =>
    asRoot
      ? run('runuser', ['-u', osUser, '--', join(binDir, name), ...args], dir, deadline)
      : run(join(binDir, name), args, dir, deadline);

  const seconds = (deadline: number) =>
    String(Math.max(1, Math.floor((deadline - Date.now()) / 1000)));

  const isRunning = async (deadline: number): Promise<boolean> => {
    const status = await pgBin('pg_ctl', ['status', '-D', dataDir], deadline);
    // pg_ctl status: 0 running, 3 not running.
    if (status.code === 0) return true;
    if (status.code === 3) return false;
    throw fail('pg_ctl status failed', status.describe());
  };

  const startServer = async (deadline: number): Promise<void> => {
    if (await isRunning(deadline)) return;
    const result = await pgBin(
      'pg_ctl',
      ['start', '-w', '-t', seconds(deadline), '-D', dataDir, '-l', logFile],
      deadline,
    );
    if (result.code !== 0) throw fail('pg_ctl start failed', result.describe());
  };

  const stopServer = async (mode: PostgresStopMode, deadline: number): Promise<void> => {
    if (!(await isRunning(deadline))) return;
    const result = await pgBin(
      'pg_ctl',
      ['stop', '-w', '-t', seconds(deadline), '-D', dataDir, '-m', mode],
      deadline,
    );
    if (result.code !== 0) throw fail(`pg_ctl stop -m ${mode} failed`, result.describe());
  };

  const withAdmin = async <T>(
    what: string,
    deadline: number,
    use: (client: pg.Client) => Promise<T>,
  ): Promise<T> => {
    const remaining = () => Math.max(1, deadline - Date.now());
    const client = new pg.Client({
      host: HOST,
      port,
      user: 'postgres',
      database: 'postgres',
      application_name: ADMIN_APPLICATION_NAME,
      connectionTimeoutMillis: remaining(),
      query_timeout: remaining(),
    });
    // A server stopped under us emits an error after the call has failed anyway.
    client.on('error', () => {});
    try {
      await client.connect();
      return await use(client);
    } catch (error) {
      throw fail(`${what} failed: ${(error as Error).message}`, '');
    } finally {
      await client.end().catch(() => {});
    }
  };

  // Serialized, so a destroy() during a restart() waits for it instead of racing pg_ctl.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(operation: () => Promise<T>): Promise<T> => {
    const result = queue.then(operation, operation);
    queue = result.catch(() => {});
    return result;
  };

  let destroyed: Promise<void> | undefined;
  const destroy = (): Promise<void> => {
    destroyed ??= serial(async () => {
      try {
        await stopServer('immediate', Date.now() + deadlineMs);
      } finally {
        live.delete(entry);
        rmSync(dir, { recursive: true, force: true });
      }
    });
    return destroyed;
  };

  installExitHook();
  live.add(entry);
  try {
    const deadline = Date.now() + deadlineMs;
    if (asRoot) {
      const uid = await idOf(osUser, '-u', dir, deadline);
      const gid = await idOf(osUser, '-g', dir, deadline);
      await chown(dir, uid, gid);
    }
    const initdb = await pgBin(
      'initdb',
      [
        '-D',
        dataDir,
        '-U',
        'postgres',
        '-A',
        'trust',
        '-E',
        'UTF8',
        '--locale=C',
        '--no-sync',
        '--no-instructions',
      ],
      deadline,
    );
    if (initdb.code !== 0) throw fail('initdb failed', initdb.describe());
    const settings = {
      ...DEFAULT_SETTINGS,
      unix_socket_directories: dir,
      ...options.settings,
    };
    await appendFile(join(dataDir, 'postgresql.conf'), `\n${confLines(settings)}`);
    for (let attempt = 1; ; attempt += 1) {
      port = await freePort();
      await appendFile(join(dataDir, 'postgresql.conf'), `port = ${port}\n`);
      const logBefore = existsSync(logFile) ? readFileSync(logFile, 'utf8').length : 0;
      try {
        await startServer(deadline);
        break;
      } catch (error) {
        const logSince = existsSync(logFile) ? readFileSync(logFile, 'utf8').slice(logBefore) : '';
        if (attempt >= PORT_ATTEMPTS || !/could not bind|address already in use/i.test(logSince)) {
          throw error;
        }
      }
    }
  } catch (error) {
    await destroy().catch(() => {});
    throw error;
  }

  const url = (database = 'postgres') =>
    `postgres://postgres@${HOST}:${port}/${encodeURIComponent(database)}`;

  return {
    host: HOST,
    port,
    dir,
    logFile,
    url,
    logTail,
    destroy,
    async createDatabase(name) {
      await withAdmin(`create database ${name}`, Date.now() + deadlineMs, (client) =>
        client.query(`create database ${quoteIdentifier(name)}`),
      );
      return url(name);
    },
    restart: (mode) =>
      serial(async () => {
        const deadline = Date.now() + deadlineMs;
        await stopServer(mode, deadline);
        await startServer(deadline);
      }),
    stop: (mode) => serial(() => stopServer(mode, Date.now() + deadlineMs)),
    start: () => serial(() => startServer(Date.now() + deadlineMs)),
    terminateBackends(filter = {}) {
      const deadline = Date.now() + deadlineMs;
      return withAdmin('terminate backends', deadline, async (client) => {
        // Materialized, so the filter is applied before any backend is terminated.
        const { rows } = await client.query<{ ended: number }>(
          `with targets as materialized (
             select pid from pg_stat_activity
             where pid <> pg_backend_pid() and backend_type = 'client backend'
               and ($1::text is null or application_name = $1)
               and ($2::text is null or datname = $2)
           )
           select (count(*) filter (where pg_terminate_backend(pid, $3::bigint)))::int as ended
           from targets`,
          [
            filter.applicationName ?? null,
            filter.database ?? null,
            Math.max(1, deadline - Date.now() - 1_000),
          ],
        );
        return rows[0]?.ended ?? 0;
      });
    },
  };
}

function confLines(settings: Readonly<Record<string, string | number | boolean>>): string {
  return Object.entries(settings)
    .map(([name, value]) => {
      const text = typeof value === 'string' ? `'${value.replaceAll("'", "''")}'` : String(value);
      return `${name} = ${text}\n`;
    })
    .join('');
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}

/** A port the OS says is free now: listen on port 0, read it, close. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, HOST, resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no TCP port assigned');
  return address.port;
}

async function idOf(user: string, flag: '-u' | '-g', cwd: string, deadline: number) {
  const result = await run('id', [flag, user], cwd, deadline);
  const id = Number(result.stdout.trim());
  if (result.code !== 0 || !Number.isInteger(id)) {
    throw new Error(`cannot find OS user ${user} to run PostgreSQL as:\n${result.describe()}`);
  }
  return id;
}

interface RunResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** The command, its exit and its output, for an error message. */
  describe(): string;
}

/** Runs a command to completion; past the deadline its whole process group is killed. */
function run(
  command: string,
  args: readonly string[],
  cwd: string,
  deadline: number,
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env };
    // Our own flags say everything; a PGDATA or PGPORT of the shell must not redirect pg_ctl.
    for (const name of Object.keys(env)) if (name.startsWith('PG')) delete env[name];
    const child = spawn(command, args, {
      cwd,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    let timedOut = false;
    const timer = setTimeout(
      () => {
        timedOut = true;
        try {
          if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      },
      Math.max(0, deadline - Date.now()),
    );
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`cannot run ${command}: ${error.message}`));
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      const line = [command, ...args].join(' ');
      resolve({
        code: timedOut ? null : code,
        stdout,
        stderr,
        describe: () =>
          `$ ${line}\n${timedOut ? 'killed at its deadline' : `exit ${code}`}\n${stdout}${stderr}`,
      });
    });
  });
}

/**
 * The server outlives our process (pg_ctl detaches it), so a test run that
 * exits without destroy() would leave clusters behind: stop them at exit.
 */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const { dataDir, dir } of live) {
      try {
        const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
        // SIGQUIT is PostgreSQL's immediate shutdown.
        if (Number.isInteger(pid) && pid > 0) process.kill(pid, 'SIGQUIT');
      } catch {
        // Not running.
      }
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
