import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A PostgreSQL database of the replica demo's own, dropped by `drop()`. */
export interface DemoDatabase {
  readonly name: string;
  /** The URL the worker replicas get as `--store`. */
  readonly url: string;
  /** Drops the database, closing the connections still open on it. Safe to call twice. */
  drop(): Promise<void>;
}

/**
 * Creates an empty database with a random name on the server `serverUrl`
 * reaches (any database on it will do to connect), so a demo never sees
 * another run's tasks and never writes to a database the user already has.
 * The workers create their tables on start.
 */
export async function createDemoDatabase(serverUrl: string): Promise<DemoDatabase> {
  const name = `a2a_reminders_demo_${randomBytes(4).toString('hex')}`;
  await onServer(serverUrl, async (client) => {
    await client.query(`create database ${client.escapeIdentifier(name)}`);
  });
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: () => dropDatabase(serverUrl, name),
  };
}

/** Drops the database `name` if it exists, closing the connections still open on it. */
export function dropDatabase(serverUrl: string, name: string): Promise<void> {
  return onServer(serverUrl, async (client) => {
    // `with (force)`: a replica killed mid-run may leave a session behind.
    await client.query(`drop database if exists ${client.escapeIdentifier(name)} with (force)`);
  });
}

/** Whether the server `serverUrl` reaches has a database named `name`. */
export function databaseExists(serverUrl: string, name: string): Promise<boolean> {
  return onServer(serverUrl, async (client) => {
    const result = await client.query('select 1 from pg_database where datname = $1', [name]);
    return result.rowCount === 1;
  });
}

async function onServer<T>(serverUrl: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}
