import { randomUUID } from 'node:crypto';
import { DatabaseReminderStore, openReminderDatabase } from '@a2a-reminders/database';
import type { TestDatabase } from '@a2a-reminders/database/testing';
import { createTestDatabase } from '@a2a-reminders/database/testing';
import type { ProxyConnection, TcpProxy } from '@a2a-reminders/test-support';
import { startTcpProxy } from '@a2a-reminders/test-support';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { GatedStore } from './gated-store.js';
import type { Stack, StackOptions } from './stack.js';
import { storeParameter } from './stack-store.js';

/** How the store's connections are opened. */
export interface BreakableOptions {
  /** PostgreSQL: the pool's `statementTimeoutMs` (R70); its deadline is half as long again. */
  readonly statementTimeoutMs?: number;
  /** SQLite: how long a write waits for another connection's lock before SQLITE_BUSY (R69). */
  readonly busyTimeoutMs?: number;
}

type Engine = 'sqlite' | 'postgres';

/**
 * A reminder store on connections a case can break (R69, R70), as the
 * suite's store parameter says: PostgreSQL through a loopback proxy, every
 * connection of it named `applicationName`; a SQLite file another
 * connection can lock. It is a GatedStore, so a case can also hold one of
 * its transactions between two statements and break the connection then.
 */
export class BreakableStore extends GatedStore {
  constructor(
    inner: DatabaseReminderStore,
    readonly engine: Engine,
    /** PostgreSQL: the `application_name` of the store's connections. */
    readonly applicationName: string,
    private readonly faults: {
      readonly proxy?: TcpProxy;
      readonly admin?: Kysely<unknown>;
      readonly locker?: Kysely<unknown>;
    },
  ) {
    super(inner);
  }

  /**
   * PostgreSQL: the proxy black-holes the store's connections, open and new
   * (half-open: nothing answers, nothing is reset). SQLite: another
   * connection takes the file's write lock (`BEGIN EXCLUSIVE`) and keeps it.
   * Returns how many open connections were black-holed (SQLite: 1).
   */
  async break(): Promise<number> {
    if (this.engine === 'postgres') return this.proxy().blackHole(this.filter());
    await sql`begin exclusive`.execute(this.locker());
    return 1;
  }

  /** Undoes `break()`: new connections get through again; the lock is released. */
  async heal(): Promise<void> {
    if (this.engine === 'postgres') this.proxy().heal();
    else await sql`rollback`.execute(this.locker());
  }

  /** PostgreSQL: resets the store's open connections at the proxy (RST), as a network failure does. */
  cut(): number {
    return this.proxy().cut(this.filter());
  }

  /** PostgreSQL: ends the store's backends on the server (`pg_terminate_backend`), as an operator or a failover does. */
  async terminateBackends(): Promise<number> {
    const admin = this.faults.admin;
    if (admin === undefined) throw new Error('only a PostgreSQL store has backends to end');
    const { rows } = await sql<{ ended: boolean }>`
      select pg_terminate_backend(pid) as ended from pg_stat_activity
      where datname = current_database() and application_name = ${this.applicationName}`.execute(
      admin,
    );
    return rows.filter((row) => row.ended).length;
  }

  /**
   * PostgreSQL: how many of the store's sessions the server holds idle in
   * a transaction (each holding its row locks, R19).
   */
  async idleInTransaction(): Promise<number> {
    const admin = this.faults.admin;
    if (admin === undefined) throw new Error('only a PostgreSQL store has sessions');
    const { rows } = await sql<{ n: number | string }>`
      select count(*) as n from pg_stat_activity
      where datname = current_database() and application_name = ${this.applicationName}
        and state like 'idle in transaction%'`.execute(admin);
    return Number(rows[0]?.n ?? 0);
  }

  /** PostgreSQL: the store's connections as the proxy sees them, oldest first. */
  connections(): ProxyConnection[] {
    return this.proxy()
      .connections()
      .filter((c) => c.applicationName === this.applicationName);
  }

  private filter() {
    return { applicationName: this.applicationName };
  }

  private proxy(): TcpProxy {
    if (this.faults.proxy === undefined) throw new Error('only a PostgreSQL store has a proxy');
    return this.faults.proxy;
  }

  private locker(): Kysely<unknown> {
    if (this.faults.locker === undefined) throw new Error('only a SQLite store has a locker');
    return this.faults.locker;
  }
}

/** The BreakableStore a stack runs on (StackOptions.reminderStore from {@link StoreFaultHost.stack}). */
export function breakableOf(stack: Stack): BreakableStore {
  if (!(stack.reminderStore instanceof BreakableStore)) {
    throw new Error('this stack does not run on a breakable store');
  }
  return stack.reminderStore;
}

/**
 * One test file's breakable stores: a database of the file's own (the
 * suite's store parameter, PostgreSQL or SQLite), made on first use, and
 * for PostgreSQL one proxy in front of its server. The faults touch only
 * the connections of the stores opened here: the shared server itself is
 * never stopped. `close()` after the file.
 */
export class StoreFaultHost {
  private database: Promise<TestDatabase> | undefined;
  private tcpProxy: Promise<TcpProxy> | undefined;
  private admin: Promise<Kysely<unknown>> | undefined;
  private readonly opened: Kysely<unknown>[] = [];
  /** What the stores' pools reported of connections that failed while idle (expected under these faults). */
  readonly poolErrors: unknown[] = [];

  /** Stack options that run the stack on a new breakable store. */
  stack(options: BreakableOptions = {}): StackOptions {
    return { reminderStore: () => this.open(options) };
  }

  async open(options: BreakableOptions = {}): Promise<BreakableStore> {
    const engine = storeParameter();
    if (engine === 'memory') throw new Error('the in-memory store has no connection to break');
    const database = await this.shared(engine);
    const applicationName = `conformance-faults-${randomUUID().slice(0, 8)}`;
    if (engine === 'sqlite') {
      const db = this.keep(
        await database.open(
          options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs },
        ),
      );
      const locker = this.keep(await database.open());
      return new BreakableStore(new DatabaseReminderStore(db), engine, applicationName, {
        locker,
      });
    }
    const proxy = await this.proxy(database);
    const through = new URL(database.url);
    through.hostname = proxy.host;
    through.port = String(proxy.port);
    const db = this.keep(
      await openReminderDatabase(through.toString(), {
        applicationName,
        ...(options.statementTimeoutMs === undefined
          ? {}
          : { statementTimeoutMs: options.statementTimeoutMs }),
        onIdleConnectionError: (error) => this.poolErrors.push(error),
      }),
    );
    this.admin ??= database.open({ poolSize: 1 });
    return new BreakableStore(new DatabaseReminderStore(db), engine, applicationName, {
      proxy,
      admin: await this.admin,
    });
  }

  async close(): Promise<void> {
    const proxy = await this.tcpProxy?.catch(() => undefined);
    proxy?.heal();
    await Promise.allSettled(this.opened.splice(0).map((db) => db.destroy()));
    await (await this.admin?.catch(() => undefined))?.destroy();
    await proxy?.close();
    await (await this.database?.catch(() => undefined))?.drop();
    this.admin = undefined;
    this.tcpProxy = undefined;
    this.database = undefined;
  }

  private keep(db: Kysely<unknown>): Kysely<unknown> {
    this.opened.push(db);
    return db;
  }

  private shared(engine: Engine): Promise<TestDatabase> {
    this.database ??= createTestDatabase(engine);
    return this.database;
  }

  private proxy(database: TestDatabase): Promise<TcpProxy> {
    this.tcpProxy ??= (() => {
      const server = new URL(database.url);
      return startTcpProxy({
        targetHost: server.hostname,
        targetPort: Number(server.port === '' ? 5432 : server.port),
      });
    })();
    return this.tcpProxy;
  }
}
