import { connect as connectTcp } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PostgresCluster } from './postgres-cluster.js';
import { startPostgresCluster } from './postgres-cluster.js';
import type { ProxyConnection, TcpProxy } from './tcp-proxy.js';
import { startTcpProxy } from './tcp-proxy.js';

// Failure bounds only, for a loaded machine: every step waits for an event, never for time.
const HOOK_TIMEOUT = 120_000;
const TEST_TIMEOUT = 120_000;
const WAIT_DEADLINE_MS = 60_000;
/** How long a black-holed call is watched for an answer it must never get (not a speed bound). */
const SILENCE_MS = 300;

const MAIN = 'a2a-reminders main';
const LEASE = 'a2a-reminders lease';
const LISTEN = 'a2a-reminders listen';

let cluster: PostgresCluster | undefined;
let proxy: TcpProxy;
const clients: pg.Client[] = [];

function started(): PostgresCluster {
  if (cluster === undefined) throw new Error('no cluster: beforeAll failed');
  return cluster;
}

beforeAll(async () => {
  cluster = await startPostgresCluster();
  proxy = await startTcpProxy({ targetPort: cluster.port });
}, HOOK_TIMEOUT);

afterEach(async () => {
  proxy.heal();
  // Black-holed clients would never finish a polite end(): reset them first.
  proxy.cut();
  await Promise.allSettled(clients.splice(0).map((client) => client.end()));
});

afterAll(async () => {
  await Promise.allSettled([proxy?.close(), cluster?.destroy()]);
}, HOOK_TIMEOUT);

/** A client through the proxy, not connected yet; its unexpected end is a promise. */
function client(applicationName?: string) {
  const created = new pg.Client({
    connectionString: proxy.url(),
    ...(applicationName === undefined ? {} : { application_name: applicationName }),
  });
  clients.push(created);
  const failed = new Promise<Error>((resolve) => created.on('error', resolve));
  return { client: created, failed };
}

async function connected(applicationName?: string) {
  const made = client(applicationName);
  await made.client.connect();
  return made;
}

async function answers(db: pg.Client): Promise<number> {
  const { rows } = await db.query<{ one: number }>('select 1 as one');
  return rows[0]?.one ?? 0;
}

/** Whether a promise has settled yet, without letting its rejection go unhandled. */
function watch(promise: Promise<unknown>) {
  let settled = false;
  const done = promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  return { settled: () => settled, done, promise };
}

async function waitFor<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
): Promise<T> {
  const deadline = Date.now() + WAIT_DEADLINE_MS;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await delay(10);
  }
}

const byName = (name: string) => (c: ProxyConnection) => c.applicationName === name;

/** Application names of the cluster's client backends, seen directly (not through the proxy). */
async function serverSees(): Promise<string[]> {
  const direct = new pg.Client({ connectionString: started().url() });
  await direct.connect();
  try {
    const { rows } = await direct.query<{ name: string }>(
      `select application_name as name from pg_stat_activity
       where backend_type = 'client backend' and pid <> pg_backend_pid() order by 1`,
    );
    return rows.map((row) => row.name);
  } finally {
    await direct.end();
  }
}

describe('startTcpProxy', { timeout: TEST_TIMEOUT }, () => {
  it('forwards, and classifies connections by their startup message', async () => {
    const main = await connected(MAIN);
    const lease = await connected(LEASE);
    const anonymous = await connected();
    for (const db of [main, lease, anonymous]) expect(await answers(db.client)).toBe(1);

    const listed = proxy.connections();
    expect(listed).toHaveLength(3);
    expect(listed.find(byName(MAIN))).toMatchObject({
      state: 'forwarding',
      user: 'postgres',
      database: 'postgres',
    });
    expect(listed.find(byName(LEASE))?.state).toBe('forwarding');
    expect(listed.filter((c) => c.applicationName === undefined)).toHaveLength(1);
    expect(listed.every((c) => c.bytesToServer > 0 && c.bytesToClient > 0)).toBe(true);
  });

  it('forwards an SSL request and classifies the startup message after the refusal', async () => {
    const socket = connectTcp({ host: proxy.host, port: proxy.port });
    const received: Buffer[] = [];
    let onData = () => {};
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      onData();
    });
    const receivedBytes = (count: number) =>
      new Promise<Buffer>((resolve, reject) => {
        const check = () => {
          const all = Buffer.concat(received);
          if (all.length >= count) resolve(all);
        };
        onData = check;
        socket.once('close', () => reject(new Error('proxy closed the connection')));
        check();
      });
    try {
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      const sslRequest = Buffer.alloc(8);
      sslRequest.writeInt32BE(8, 0);
      sslRequest.writeInt32BE(80877103, 4);
      socket.write(sslRequest);
      // The server has no TLS here: it answers N, and the client goes on in plaintext.
      expect((await receivedBytes(1)).toString('latin1', 0, 1)).toBe('N');

      const startup = startupMessage({
        user: 'postgres',
        database: 'postgres',
        application_name: 'raw client',
      });
      // In two pieces (a pause between, so they likely arrive apart): the proxy waits for both.
      socket.write(startup.subarray(0, 11));
      await delay(50);
      expect(proxy.connections().find((c) => c.bytesToServer > 8)).toBeUndefined();
      socket.write(startup.subarray(11));
      // AuthenticationOk ('R', length 8, 0) after the N.
      const reply = await receivedBytes(1 + 9);
      expect(reply.toString('latin1', 1, 2)).toBe('R');
      expect(reply.readInt32BE(6)).toBe(0);
      expect(proxy.connections().find(byName('raw client'))).toMatchObject({
        state: 'forwarding',
        user: 'postgres',
      });
    } finally {
      socket.destroy();
    }
  });

  it('cuts only the connections the filter names, with an error on their clients', async () => {
    const main = await connected(MAIN);
    const lease = await connected(LEASE);

    expect(proxy.cut({ applicationName: LEASE })).toBe(1);

    const error = await lease.failed;
    expect(error.message).toMatch(/ECONNRESET|terminated unexpectedly/);
    await expect(lease.client.query('select 1')).rejects.toThrow();
    expect(await answers(main.client)).toBe(1);
    expect(proxy.connections().map((c) => c.applicationName)).toEqual([MAIN]);
  });

  it('black-holes open connections: a query hangs, others go on; heal lets new ones through', async () => {
    const main = await connected(MAIN);
    const listen = await connected(LISTEN);
    expect(await answers(listen.client)).toBe(1);

    expect(proxy.blackHole({ applicationName: LISTEN })).toBe(1);
    const query = watch(listen.client.query("select 'never answered'"));

    // Once the proxy has swallowed the query's bytes, no answer can ever come.
    await waitFor('the query to be swallowed', () =>
      proxy.connections().find((c) => c.applicationName === LISTEN && c.bytesDropped > 0),
    );
    await delay(SILENCE_MS);
    expect(query.settled()).toBe(false);
    expect(await answers(main.client)).toBe(1);
    // Half-open: the server still holds the black-holed connection's backend.
    expect(await serverSees()).toContain(LISTEN);

    proxy.heal();
    const fresh = await connected(LISTEN);
    expect(await answers(fresh.client)).toBe(1);
    expect(
      proxy
        .connections()
        .filter(byName(LISTEN))
        .map((c) => c.state),
    ).toEqual(['black-holed', 'forwarding']);
    expect(query.settled()).toBe(false);

    expect(proxy.cut({ applicationName: LISTEN })).toBe(2);
    await expect(query.promise).rejects.toThrow();
  });

  it('black-holes new matching connections until heal, without reaching the server', async () => {
    // Backends of connections cut before exit on their own time.
    await waitFor('earlier lease backends to exit', async () =>
      (await serverSees()).includes(LEASE) ? undefined : true,
    );
    expect(proxy.blackHole({ applicationName: LEASE })).toBe(0);
    const lease = client(LEASE);
    const connecting = watch(lease.client.connect());

    await waitFor('the new connection to be black-holed', () =>
      proxy.connections().find((c) => c.applicationName === LEASE && c.state === 'black-holed'),
    );
    const main = await connected(MAIN);
    expect(await answers(main.client)).toBe(1);
    await delay(SILENCE_MS);
    expect(connecting.settled()).toBe(false);
    expect(await serverSees()).not.toContain(LEASE);

    proxy.heal();
    const healed = await connected(LEASE);
    expect(await answers(healed.client)).toBe(1);
    expect(connecting.settled()).toBe(false);

    proxy.cut({ applicationName: LEASE });
    await expect(connecting.promise).rejects.toThrow();
  });

  it('black-holes everything without a filter', async () => {
    const main = await connected(MAIN);
    const anonymous = await connected();
    expect(proxy.blackHole()).toBe(2);
    const queries = [main, anonymous].map((db) => watch(db.client.query('select 1')));
    const late = client();
    const connecting = watch(late.client.connect());

    await waitFor('every connection to swallow bytes', () => {
      const listed = proxy.connections();
      return listed.length === 3 && listed.every((c) => c.bytesDropped > 0) ? listed : undefined;
    });
    await delay(SILENCE_MS);
    expect([...queries, connecting].map((watched) => watched.settled())).toEqual([
      false,
      false,
      false,
    ]);
    expect(proxy.connections().every((c) => c.state === 'black-holed')).toBe(true);

    expect(proxy.cut()).toBe(3);
    await Promise.all([...queries, connecting].map((w) => expect(w.promise).rejects.toThrow()));
  });

  it('close() ends every connection and stops listening', async () => {
    const own = await startTcpProxy({ targetPort: started().port });
    try {
      const db = new pg.Client({ connectionString: own.url(), application_name: MAIN });
      clients.push(db);
      const failed = new Promise<Error>((resolve) => db.on('error', resolve));
      await db.connect();
      own.blackHole({ applicationName: MAIN });
      await own.close();
      await expect(failed).resolves.toBeInstanceOf(Error);
      expect(own.connections()).toEqual([]);
      const refused = new pg.Client({ connectionString: own.url() });
      await expect(refused.connect()).rejects.toThrow(/ECONNREFUSED/);
    } finally {
      await own.close();
    }
  });
});

/** A protocol 3.0 startup message with the given parameters. */
function startupMessage(params: Record<string, string>): Buffer {
  const body = Buffer.from(
    `${Object.entries(params)
      .map(([name, value]) => `${name}\0${value}\0`)
      .join('')}\0`,
  );
  const header = Buffer.alloc(8);
  header.writeInt32BE(8 + body.length, 0);
  header.writeInt32BE(196608, 4);
  return Buffer.concat([header, body]);
}
