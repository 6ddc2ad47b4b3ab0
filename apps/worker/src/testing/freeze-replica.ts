import type { ClientBase } from 'pg';
import type { Replica } from './replica-set.js';

/** Most SIGSTOP attempts before giving up: each one that lands mid-transaction is undone. */
const ATTEMPTS = 200;

/**
 * Freezes a replica with SIGSTOP at a moment it holds no open transaction.
 *
 * A frozen process stops taking turns and heartbeating, as a dead one does,
 * but a transaction it had open would keep its row locks, and every other
 * replica's transaction on that task would wait behind it until the kill.
 * So after each SIGSTOP this waits until no backend of the database runs a
 * statement (the frozen process's last one completes on the server), then
 * checks that none sits idle inside a transaction; if one does, the replica
 * is resumed and frozen again. The other replicas must be idle meanwhile.
 */
export async function freezeOutsideTransaction(replica: Replica, db: ClientBase): Promise<void> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    replica.process.child.kill('SIGSTOP');
    let states = await backendStates(db);
    while (states.includes('active')) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      states = await backendStates(db);
    }
    if (!states.some((s) => s.startsWith('idle in transaction'))) return;
    replica.process.child.kill('SIGCONT');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`replica ${replica.name} was inside a transaction at every SIGSTOP`);
}

/** The states of the other client connections to this database. */
async function backendStates(db: ClientBase): Promise<string[]> {
  const { rows } = await db.query<{ state: string | null }>(
    `select state from pg_stat_activity
    where datname = current_database() and pid <> pg_backend_pid()
      and backend_type = 'client backend'`,
  );
  return rows.map((r) => r.state ?? '');
}
