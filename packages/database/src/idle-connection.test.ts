import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { TestDatabase } from './test-database.js';
import { createTestDatabase } from './test-database.js';

// A server that closes an idle pooled connection (restart, failover,
// idle_session_timeout) must not kill the process: every replica would go
// down at once. The failure is reported and the next query gets a new one.

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase('postgres');
});
afterAll(async () => {
  await database?.drop();
});

it('survives the server closing an idle pooled connection, and keeps serving', async () => {
  const reported = vi.spyOn(console, 'error').mockImplementation(() => {});
  const db = await database.open({ poolSize: 2 });
  const admin = await database.open({ poolSize: 1 });
  try {
    const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db);
    const pid = rows[0]?.pid;
    await sql`select pg_terminate_backend(${pid})`.execute(admin);
    await vi.waitFor(() => expect(reported).toHaveBeenCalled(), { timeout: 30_000 });
    expect(String(reported.mock.calls[0]?.[0])).toMatch(/idle database connection failed/);
    const again = await sql<{ one: number }>`select 1 as one`.execute(db);
    expect(again.rows[0]?.one).toBe(1);
  } finally {
    reported.mockRestore();
    await db.destroy();
    await admin.destroy();
  }
});

it('reports the failure to onIdleConnectionError instead, when given', async () => {
  const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
  const seen: Error[] = [];
  const db = await database.open({ poolSize: 1, onIdleConnectionError: (e) => seen.push(e) });
  const admin = await database.open({ poolSize: 1 });
  try {
    const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db);
    await sql`select pg_terminate_backend(${rows[0]?.pid})`.execute(admin);
    await vi.waitFor(() => expect(seen).toHaveLength(1), { timeout: 30_000 });
    expect((seen[0] as Error & { code?: string }).code).toBe('57P01');
    expect(logged).not.toHaveBeenCalled();
  } finally {
    logged.mockRestore();
    await db.destroy();
    await admin.destroy();
  }
});
