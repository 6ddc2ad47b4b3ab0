import type { Dialect, LogConfig, SqliteDatabase } from 'kysely';
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
   * SQLite: how long a statement waits for another process's write lock
   * before failing with SQLITE_BUSY, in ms (default 10 000).
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
   * PostgreSQL: told when the server closes an idle pooled connection (the
   * pool replaces it). Default: a line on `console.error`.
   */
  readonly onIdleConnectionError?: (error: Error) => void;
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
  return new Kysely<DB>({ dialect, ...(options.log === undefined ? {} : { log: options.log }) });
}

async function postgresDialect(url: string, options: OpenDatabaseOptions): Promise<Dialect> {
  const { default: pg } = await loadDriver<{ default: typeof import('pg') }>('pg', 'postgres://');
  if (options.schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(options.schema)) {
    throw new Error(`schema must be a plain lower-case identifier, got "${options.schema}"`);
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 10_000,
    ...(options.schema === undefined ? {} : { options: `-c search_path=${options.schema}` }),
  });
  // An idle pooled connection the server closes (a restart, failover,
  // idle_session_timeout, a proxy) is reported on the pool; with no listener
  // that event would kill the process. pg drops the client and the next
  // checkout opens a new one, so reporting it is all there is to do.
  pool.on('error', (error) => {
    if (options.onIdleConnectionError !== undefined) return options.onIdleConnectionError(error);
    console.error('task reminders: an idle database connection failed; it is replaced', error);
  });
  return new PostgresDialect({ pool });
}

async function sqliteDialect(file: string, options: OpenDatabaseOptions): Promise<Dialect> {
  const { default: Database } = await loadDriver<{ default: typeof import('better-sqlite3') }>(
    'better-sqlite3',
    'sqlite:',
  );
  const database = new Database(file, { timeout: options.busyTimeoutMs ?? 10_000 });
  database.pragma('journal_mode = WAL');
  database.pragma(`synchronous = ${options.synchronous ?? 'NORMAL'}`);
  return new SqliteDialect({ database: withStatementCache(database) });
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
