import pg from 'pg';

/**
 * One plain connection for a test's own reads of the shared database.
 * Unlike a pool (whose `end()` resolves before its sockets close, so a
 * forced drop right after can fail a connection still closing), its `end()`
 * resolves once the connection is closed: drop the database after it.
 */
export async function connectSql(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}
