import type { Dialect, LogConfig, PostgresPool, PostgresPoolClient, SqliteDatabase } from 'kysely';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import type { ReminderDialect } from './dialect.js';

/** Options of {@link openReminderDatabase}. */
export interface OpenDatabaseOptions {
  /** PostgreSQL: most pooled connections (default 10). */
  readonly poolSize?: number;
  /**
   * PostgreSQL: the schema the connections use (`search_path`), for a
   * database shared by several deployments or test runs. Default: the
   * server's (`public`).
   */
  readonly schema?: string;
  /**
   * SQLite: how long a call waits for another process's write lock before
   * failing UNAVAILABLE, in ms (default 10 000). The wait does not block the
   * process: the stores retry between other calls (R69).
   */
  readonly busyTimeoutMs?: number;
  /**
   * SQLite: `NORMAL` (default) keeps every committed transaction across a
   * crash of the process (kill -9) in WAL mode; `FULL` also across a power
   * loss or OS crash, at one more fsync per commit.
   */
  readonly synchronous?: 'NORMAL' | 'FULL';
  /** Kysely's query log (e.g. to count the statements an operation issues). */
  readonly log?: LogConfig;
  /**
   * PostgreSQL: told when a pooled connection fails, idle or in use (a
   * restart, failover, `pg_terminate_backend`, a proxy); the pool discards
   * it and the next checkout opens a new one. Default: a line on
   * `console.error`.
   */
  readonly onIdleConnectionError?: (error: Error) => void;
  /**
   * PostgreSQL: the server's `statement_timeout` for every statement, in ms
   * (default 10 000). Each statement also has a deadline in this process,
   * `statementTimeoutMs` and half as much again (at most 2 000 more), after which its connection is closed and
   * the call fails (R70): the server's timeout cannot fire over a
   * connection that stopped answering (half-open), this deadline can.
   */
  readonly statementTimeoutMs?: number;
  /**
   * PostgreSQL: `application_name` of the connections, which
   * `pg_stat_activity` shows (default `a2a-reminders`).
   */
  readonly applicationName?: string;
}

/** A database URL this package opens: `sqlite:<file>`, `postgres://…` or `postgresql://…`. */
export interface ParsedDatabaseUrl {
  readonly dialect: ReminderDialect;
  /** The file for SQLite (`:memory:` allowed); the URL itself for PostgreSQL. */
  readonly target: string;
}

/** Reads a database URL; throws a message naming the accepted forms. */
export function parseDatabaseUrl(url: string): ParsedDatabaseUrl {
  const colon = url.indexOf(':');
  const scheme = colon <= 0 ? '' : url.slice(0, colon).toLowerCase();
  if (scheme === 'postgres' || scheme === 'postgresql') return { dialect: 'postgres', target: url };
  if (scheme === 'sqlite') {
    const file = url.slice(colon + 1).replace(/^\/\//, '');
    if (file === '') {
      throw new Error(
        `No file in SQLite URL "${url}". Expected sqlite:<file>, e.g. sqlite:./reminders.db.`,
      );
    }
    return { dialect: 'sqlite', target: file };
  }
  throw new Error(
    `Unsupported database URL "${url}". Expected sqlite:<file> or postgres://user@host:port/database.`,
  );
}

/**
 * Opens a Kysely instance for a database URL with the settings this
 * package's store relies on. The caller owns it (`destroy()` closes it) and
 * can hand the same instance to the SDK's `DatabaseTaskStore`, so tasks and
 * reminders live in one database. The drivers are optional peers, loaded
 * only for the URL's engine.
 *
 * SQLite: WAL journal (readers never block the writer; committed
 * transactions survive a process crash), a busy timeout so a transaction
 * waits for another process's `BEGIN IMMEDIATE` instead of failing.
 */
export async function openReminderDatabase<DB = unknown>(
  url: string,
  options: OpenDatabaseOptions = {},
): Promise<Kysely<DB>> {
  const parsed = parseDatabaseUrl(url);
  const dialect =
    parsed.dialect === 'postgres'
      ? await postgresDialect(parsed.target, options)
      : await sqliteDialect(parsed.target, options);
  const db = new Kysely<DB>({
    dialect,
    ...(options.log === undefined ? {} : { log: options.log }),
  });
  if (parsed.dialect === 'sqlite') {
    sqliteBusyTimeouts.set(db, options.busyTimeoutMs ?? DEFAULT_SQLITE_BUSY_TIMEOUT_MS);
  }
  return db;
}

async function postgresDialect(url: string, options: OpenDatabaseOptions): Promise<Dialect> {
  const { default: pg } = await loadDriver<{ default: typeof import('pg') }>('pg', 'postgres://');
  if (options.schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(options.schema)) {
    throw new Error(`schema must be a plain lower-case identifier, got "${options.schema}"`);
  }
  const statementTimeoutMs = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  if (!Number.isSafeInteger(statementTimeoutMs) || statementTimeoutMs < 1) {
    throw new RangeError(
      `statementTimeoutMs must be a positive whole number, not ${statementTimeoutMs}`,
    );
  }
  const deadlineMs =
    statementTimeoutMs + Math.min(DEADLINE_SLACK_MS, Math.ceil(statementTimeoutMs / 2));
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    // R70: a server that does not answer a new connection in time is down.
    connectionTimeoutMillis: Math.min(deadlineMs, 10_000),
    // TCP keepalive from 10 s on keeps idle connections through NATs and
    // proxies and lets the kernel find a peer that went away without a reset.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    statement_timeout: statementTimeoutMs,
    // A transaction whose client stopped answering holds its task's row
    // lock (R19) until the server ends it: this ends it.
    idle_in_transaction_session_timeout: deadlineMs,
    application_name: options.applicationName ?? 'a2a-reminders',
    ...(options.schema === undefined ? {} : { options: `-c search_path=${options.schema}` }),
  });
  const report = (error: Error) => {
    if (options.onIdleConnectionError !== undefined) return options.onIdleConnectionError(error);
    console.error(`task reminders: a database connection failed; it is replaced: ${error.message}`);
  };
  // R70: pg-pool listens for errors only on idle clients and Kysely on none,
  // so a connection that fails while checked out (a backend terminated
  // mid-transaction) would raise an unhandled 'error' and end the process.
  // Every client gets a listener for its whole life; its query in flight
  // fails, and the pool discards the client when it is released.
  pool.on('connect', (client) => {
    client.on('error', report);
  });
  // pg-pool re-emits an idle client's error on the pool, which the client's
  // own listener has reported already; without a listener it would throw.
  pool.on('error', () => {});
  return new PostgresDialect({ pool: deadlinePool(pool, deadlineMs) });
}

/** The server's statement timeout by default, in ms (R70). */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 10_000;
/** Most extra time past the server's timeout a statement gets here before its connection is closed. */
const DEADLINE_SLACK_MS = 2_000;

type PgPool = import('pg').Pool;
type PgPoolClient = import('pg').PoolClient;

/**
 * The pool as Kysely sees it, each statement under a deadline (R70). A
 * statement that has not answered by then fails the call with an error the
 * store reports as UNAVAILABLE (R69), and its connection is closed and
 * discarded: the statement may still be queued on a half-open socket, and
 * pg cannot take another statement on that connection until it answers.
 */
function deadlinePool(pool: PgPool, deadlineMs: number): PostgresPool {
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      let broken: Error | undefined;
      const query = (...args: unknown[]): unknown => {
        const run = (client.query as (...a: unknown[]) => unknown)(...args);
        // A cursor (Kysely's streaming) is not a promise; it keeps pg's own behaviour.
        if (!(run instanceof Promise)) return run;
        return new Promise((resolve, reject) => {
          const timer = setTimeout(() => {
            broken = new Error(
              `database statement deadline of ${deadlineMs} ms passed; its connection was closed`,
            );
            reject(broken);
            destroySocket(client);
          }, deadlineMs);
          run.then(
            (result) => {
              clearTimeout(timer);
              resolve(result);
            },
            (error: unknown) => {
              clearTimeout(timer);
              reject(error);
            },
          );
        });
      };
      return {
        query: query as PostgresPoolClient['query'],
        // A broken connection is destroyed, never handed to the next caller.
        release: () => client.release(broken),
      };
    },
    end: () => pool.end(),
  };
}

/** Closes a client's socket at once: `end()` would wait on a connection that no longer answers. */
function destroySocket(client: PgPoolClient): void {
  const connection = (client as unknown as { connection?: { stream?: { destroy(): void } } })
    .connection;
  connection?.stream?.destroy();
}

async function sqliteDialect(file: string, options: OpenDatabaseOptions): Promise<Dialect> {
  const { default: Database } = await loadDriver<{ default: typeof import('better-sqlite3') }>(
    'better-sqlite3',
    'sqlite:',
  );
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_SQLITE_BUSY_TIMEOUT_MS;
  // R69: better-sqlite3 waits for a lock on the process's only thread, so the
  // connection waits a moment at most; the store waits out the rest of the
  // busy timeout between other calls (see sqliteBusyTimeoutOf).
  const database = new Database(file, { timeout: Math.min(busyTimeoutMs, SQLITE_LOCK_WAIT_MS) });
  database.pragma('journal_mode = WAL');
  database.pragma(`synchronous = ${options.synchronous ?? 'NORMAL'}`);
  return new SqliteDialect({ database: withStatementCache(database) });
}

/** SQLite's busy timeout by default, in ms: how long a call waits for another process's write lock. */
export const DEFAULT_SQLITE_BUSY_TIMEOUT_MS = 10_000;
/** The most a SQLite connection itself blocks waiting for a lock, in ms. */
const SQLITE_LOCK_WAIT_MS = 20;
const sqliteBusyTimeouts = new WeakMap<object, number>();

/**
 * SQLite: the busy timeout `openReminderDatabase` was given for `db`, which
 * the stores wait out themselves, a little at a time (R69); the default for
 * an instance opened elsewhere.
 */
export function sqliteBusyTimeoutOf(db: object): number {
  return sqliteBusyTimeouts.get(db) ?? DEFAULT_SQLITE_BUSY_TIMEOUT_MS;
}

/** Most prepared statements kept per SQLite connection. */
const STATEMENT_CACHE_SIZE = 256;

/**
 * Kysely's SQLite driver prepares every statement it runs; a store issues
 * the same few statements over and over, so the connection keeps them
 * prepared (keyed by SQL text, oldest dropped first). Safe because Kysely
 * runs one statement at a time on its single SQLite connection and reads
 * results with `all()`/`run()`, never leaving a statement mid-iteration.
 */
function withStatementCache(database: SqliteDatabase): SqliteDatabase {
  const cache = new Map<string, ReturnType<SqliteDatabase['prepare']>>();
  return {
    close: () => database.close(),
    prepare(sql: string) {
      let statement = cache.get(sql);
      if (statement === undefined) {
        statement = database.prepare(sql);
        if (cache.size >= STATEMENT_CACHE_SIZE) {
          const oldest = cache.keys().next().value;
          if (oldest !== undefined) cache.delete(oldest);
        }
        cache.set(sql, statement);
      }
      return statement;
    },
  };
}

async function loadDriver<T>(name: string, scheme: string): Promise<T> {
  try {
    return (await import(name)) as T;
  } catch (error) {
    throw new Error(
      `A ${scheme} URL needs the "${name}" package, which could not be loaded: ${String(error)}. If it is missing: npm install ${name}`,
      { cause: error },
    );
  }
}
