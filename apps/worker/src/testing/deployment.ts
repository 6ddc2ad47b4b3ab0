import type { TestDatabase } from '@a2a-reminders/database/testing';
import { createTestDatabase } from '@a2a-reminders/database/testing';
import type pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import type { Replica, ReplicaOptions } from './replica-set.js';
import { startReplicas, stopAll } from './replica-set.js';
import { connectSql } from './sql-client.js';

/**
 * The lease of suites that kill no replica: the worker's default, so a
 * replica starved of CPU for a while on a busy machine never loses a live
 * task's lease (R53) and fails a test that is not about leases.
 */
export const LIVE_LEASE_MS = 10_000;

/** Three replicas A, B, C on a fresh database of their own, and a connection for the test's reads. */
export interface Deployment {
  readonly replicas: () => [Replica, Replica, Replica];
  readonly db: () => pg.Client;
}

/**
 * Registers the suite's set-up and tear-down: an empty database (the
 * replicas migrate it themselves, all at once), three worker processes on
 * it, and a plain connection; all stopped and dropped after the suite.
 */
export function deployment(options: ReplicaOptions): Deployment {
  let database: TestDatabase | undefined;
  let db: pg.Client | undefined;
  let replicas: Replica[] = [];
  beforeAll(async () => {
    database = await createTestDatabase('postgres', { migrate: false });
    replicas = await startReplicas(database.url, ['A', 'B', 'C'], options);
    db = await connectSql(database.url);
  });
  afterAll(async () => {
    await stopAll(replicas);
    await db?.end();
    await database?.drop();
  });
  return {
    replicas: () => replicas as [Replica, Replica, Replica],
    db: () => {
      if (db === undefined) throw new Error('the deployment is not started');
      return db;
    },
  };
}
