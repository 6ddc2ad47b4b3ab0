import { existsSync } from 'node:fs';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PostgresCluster } from './postgres-cluster.js';
import { startPostgresCluster } from './postgres-cluster.js';

// Failure bounds only, for a loaded machine: every step waits for an event, never for time.
const HOOK_TIMEOUT = 120_000;
const TEST_TIMEOUT = 120_000;

const clusters: PostgresCluster[] = [];
const clients: pg.Client[] = [];
const pools: pg.Pool[] = [];

async function cluster(): Promise<PostgresCluster> {
  const started = await startPostgresCluster();
  clusters.push(started);
  return started;
}

/** A connected client whose unexpected end is a promise instead of an uncaught error. */
async function connect(url: string, applicationName?: string) {
  const client = new pg.Client({
    connectionString: url,
    ...(applicationName === undefined ? {} : { application_name: applicationName }),
  });
  clients.push(client);
  const failed = new Promise<Error>((resolve) => client.on('error', resolve));
  await client.connect();
  return { client, failed };
}

async function answers(client: pg.ClientBase | pg.Pool): Promise<number> {
  const { rows } = await client.query<{ one: number }>('select 1 as one');
  return rows[0]?.one ?? 0;
}

afterEach(async () => {
  await Promise.allSettled([
    ...clients.splice(0).map((client) => client.end()),
    ...pools.splice(0).map((pool) => pool.end()),
  ]);
});

afterAll(async () => {
  await Promise.allSettled(clusters.map((started) => started.destroy()));
}, HOOK_TIMEOUT);

describe('startPostgresCluster', { timeout: TEST_TIMEOUT }, () => {
  let shared: PostgresCluster;
  beforeAll(async () => {
    shared = await cluster();
  }, HOOK_TIMEOUT);

  it('runs its own PostgreSQL 15 on 127.0.0.1, trust authentication for postgres', async () => {
    expect(shared.port).not.toBe(5432);
    expect(shared.url()).toBe(`postgres://postgres@127.0.0.1:${shared.port}/postgres`);
    const { client } = await connect(shared.url());
    const { rows } = await client.query<{ version: string; listen: string; socket: string }>(
      `select current_setting('server_version') as version,
        current_setting('listen_addresses') as listen,
        current_setting('unix_socket_directories') as socket`,
    );
    expect(rows[0]?.version).toMatch(/^15\./);
    expect(rows[0]?.listen).toBe('127.0.0.1');
    expect(rows[0]?.socket).toBe(shared.dir);
  });

  it('creates databases', async () => {
    const url = await shared.createDatabase('fault tests');
    expect(url).toBe(shared.url('fault tests'));
    const { client } = await connect(url);
    const { rows } = await client.query<{ name: string }>('select current_database() as name');
    expect(rows[0]?.name).toBe('fault tests');
  });

  it.each(['fast', 'immediate'] as const)(
    'restarts (%s): open connections end, and a pool reconnects after',
    async (mode) => {
      const pool = new pg.Pool({ connectionString: shared.url(), max: 1 });
      pools.push(pool);
      const idleFailed = new Promise<Error>((resolve) => pool.on('error', resolve));
      expect(await answers(pool)).toBe(1);
      const { client, failed } = await connect(shared.url());

      await shared.restart(mode);

      await expect(failed).resolves.toBeInstanceOf(Error);
      await expect(client.query('select 1')).rejects.toThrow();
      // The pool drops its broken idle connection, then opens a new one.
      await idleFailed;
      expect(await answers(pool)).toBe(1);
    },
  );

  it('keeps every acknowledged commit through an immediate restart (synchronous_commit on)', async () => {
    const { client } = await connect(shared.url());
    const { rows: setting } = await client.query<{ value: string }>(
      `select current_setting('synchronous_commit') as value`,
    );
    expect(setting[0]?.value).toBe('on');
    await client.query('create table acknowledged (n int primary key)');
    // One commit each, acknowledged one after another, the last just before the crash.
    const commits = 200;
    for (let n = 1; n <= commits; n += 1) {
      await client.query('insert into acknowledged values ($1)', [n]);
    }

    await shared.restart('immediate');

    const after = await connect(shared.url());
    const { rows } = await after.client.query<{ count: number }>(
      'select count(*)::int as count from acknowledged',
    );
    expect(rows[0]?.count).toBe(commits);
    await after.client.query('drop table acknowledged');
  });

  it('stops and starts on the same port; both are no-ops when already done', async () => {
    await shared.stop('fast');
    await shared.stop('immediate');
    await expect(connect(shared.url())).rejects.toThrow(/ECONNREFUSED/);
    await shared.start();
    await shared.start();
    const { client } = await connect(shared.url());
    expect(await answers(client)).toBe(1);
  });

  it('terminates only the backends the filter names', async () => {
    const otherUrl = await shared.createDatabase('other');
    const main = await connect(shared.url(), 'a2a-reminders main');
    const lease = await connect(shared.url(), 'a2a-reminders lease');
    const listen = await connect(shared.url(), 'a2a-reminders listen');
    const otherMain = await connect(otherUrl, 'a2a-reminders main');

    expect(await shared.terminateBackends({ applicationName: 'a2a-reminders lease' })).toBe(1);
    await expect(lease.failed).resolves.toMatchObject({ code: '57P01' });
    for (const alive of [main, listen, otherMain]) expect(await answers(alive.client)).toBe(1);

    expect(
      await shared.terminateBackends({ applicationName: 'a2a-reminders main', database: 'other' }),
    ).toBe(1);
    await expect(otherMain.failed).resolves.toMatchObject({ code: '57P01' });
    for (const alive of [main, listen]) expect(await answers(alive.client)).toBe(1);

    expect(await shared.terminateBackends({ applicationName: 'nobody' })).toBe(0);
    expect(await shared.terminateBackends()).toBe(2);
    await expect(main.failed).resolves.toMatchObject({ code: '57P01' });
    await expect(listen.failed).resolves.toMatchObject({ code: '57P01' });
  });

  it('destroys: the server is gone and its directory removed; a second call is harmless', async () => {
    const doomed = await cluster();
    const { client, failed } = await connect(doomed.url());
    expect(await answers(client)).toBe(1);
    await doomed.destroy();
    await doomed.destroy();
    await failed;
    expect(existsSync(doomed.dir)).toBe(false);
    await expect(connect(doomed.url())).rejects.toThrow(/ECONNREFUSED/);
  });

  it('fails to start with the server log in the error, and leaves no directory', async () => {
    const error = await startPostgresCluster({ settings: { shared_buffers: 'plenty' } }).then(
      (started) => {
        clusters.push(started);
        return undefined;
      },
      (failure: unknown) => failure as Error,
    );
    expect(error?.message).toMatch(/pg_ctl start failed/);
    expect(error?.message).toMatch(/last lines of .*server\.log/);
    expect(error?.message).toMatch(/invalid value for parameter "shared_buffers"/);
    const dir = /PostgreSQL cluster in (\S+)/.exec(error?.message ?? '')?.[1];
    expect(dir).toBeDefined();
    expect(existsSync(dir ?? '')).toBe(false);
  });
});
