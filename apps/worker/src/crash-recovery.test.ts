import { TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import type { ReminderDialect } from '@a2a-reminders/database';
import type { TestDatabase } from '@a2a-reminders/database/testing';
import { createTestDatabase } from '@a2a-reminders/database/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTERRUPTED_REASON } from './interrupted-tasks.js';
import type { SpawnedWorker } from './testing/spawn-main.js';
import { exitOf, spawnMain } from './testing/spawn-main.js';
import { ABANDONED_REASON } from './worker-server.js';

// Issue 9: a worker killed with SIGKILL in the middle of a load of injects,
// then restarted on the same store, still lists every reminder it had
// acknowledged, each in a consistent final state, and its interrupted tasks
// are ended FAILED with the reason in their status message: at start-up on
// SQLite (one worker per file), and on PostgreSQL by the restarted worker
// once the dead one's leases expire (R53: replicas may share the database).

const TASKS = 8;
const CONCURRENCY = 16;
/** Acknowledged injects before the kill; the load is still running when it lands. */
const ACKED_BEFORE_KILL = 120;
/** Most injects one task receives: below the live quota (64), so none is refused. */
const PER_TASK_LIMIT = 40;

const headers = {
  'Content-Type': 'application/json',
  'A2A-Version': '1.0',
  'A2A-Extensions': TASK_REMINDERS_EXTENSION_URI,
};

async function rpc(
  base: string,
  method: string,
  params: unknown,
): Promise<Record<string, unknown>> {
  const response = await fetch(`${base}/a2a/jsonrpc`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: Record<string, unknown>; error?: unknown };
  if (response.status !== 200 || body.result === undefined) {
    throw new Error(`${method} answered ${response.status}: ${JSON.stringify(body)}`);
  }
  return body.result;
}

/** PostgreSQL: a short lease, so the restarted worker ends the dead one's tasks soon (R53). */
const LEASE_MS = 1000;

function startWorker(url: string): Promise<SpawnedWorker> {
  const lease = url.startsWith('postgres') ? ['--lease-ms', String(LEASE_MS)] : [];
  // Turns far apart: every task stays WORKING, its loop parked after turn 1.
  return spawnMain([
    ...lease,
    '--port',
    '0',
    '--grpc-port',
    '0',
    '--store',
    url,
    '--turns',
    '1000',
    '--turn-ms',
    '600000',
  ]);
}

async function stateOf(base: string, taskId: string): Promise<string> {
  const task = (await rpc(base, 'GetTask', { id: taskId })) as { status: { state: string } };
  return task.status.state;
}

/** Polls with a deadline far past the lease bound; never a speed assertion. */
async function until(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("the dead worker's tasks were not ended");
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface StoredRecord {
  reminder: { id: string };
  state: string;
  firstTurn?: number;
}

async function listAll(base: string, taskId: string): Promise<StoredRecord[]> {
  const records: StoredRecord[] = [];
  let pageToken = '';
  do {
    const page = await rpc(base, 'ListTaskReminders', { taskId, pageSize: 100, pageToken });
    records.push(...((page.reminders as StoredRecord[] | undefined) ?? []));
    pageToken = (page.nextPageToken as string | undefined) ?? '';
  } while (pageToken !== '');
  return records;
}

describe.each<ReminderDialect>(['sqlite', 'postgres'])(
  'worker killed under load on %s',
  (dialect) => {
    let database: TestDatabase;
    beforeAll(async () => {
      // An empty database: the worker creates the SDK's and the reminder tables itself.
      database = await createTestDatabase(dialect, { migrate: false });
    });
    afterAll(async () => {
      await database?.drop();
    });

    it('lists every acknowledged reminder after kill -9 and a restart, each in a final state', async () => {
      const first = await startWorker(database.url);
      const base = first.ready[1] ?? '';
      const taskIds: string[] = [];
      for (let i = 0; i < TASKS; i += 1) {
        const result = await rpc(base, 'SendMessage', {
          message: {
            messageId: `m-${i}`,
            role: 'ROLE_USER',
            parts: [{ text: `task ${i}` }],
          },
          configuration: { returnImmediately: true },
        });
        taskIds.push((result.task as { id: string }).id);
      }

      const acked: Array<{ taskId: string; id: string }> = [];
      let sent = 0;
      let killed = false;
      let kill = (): void => {};
      const killing = new Promise<void>((resolve) => {
        kill = resolve;
      });
      const worker = async (lane: number): Promise<void> => {
        while (!killed && sent < TASKS * PER_TASK_LIMIT) {
          const n = sent++;
          const taskId = taskIds[n % TASKS] ?? '';
          const id = `r-${lane}-${n}`;
          try {
            await rpc(base, 'InjectTaskReminder', { taskId, reminder: { id, body: `load ${n}` } });
          } catch {
            // Refused or cut off by the kill: not acknowledged, so nothing is owed.
            continue;
          }
          if (killed) continue;
          acked.push({ taskId, id });
          if (acked.length === ACKED_BEFORE_KILL) kill();
        }
      };
      const load = Promise.all(Array.from({ length: CONCURRENCY }, (_, lane) => worker(lane)));
      await Promise.race([killing, load]);
      // SIGKILL while injects are still in flight: no shutdown code runs.
      first.child.kill('SIGKILL');
      killed = true;
      await exitOf(first.child);
      await load;
      expect(acked.length).toBeGreaterThanOrEqual(ACKED_BEFORE_KILL);

      const second = await startWorker(database.url);
      try {
        const base2 = second.ready[1] ?? '';
        if (dialect === 'sqlite') {
          expect(second.lines).toContain(
            `RECOVERED ${TASKS} task(s) left running by a previous run, ended FAILED`,
          );
        } else {
          // No start-up scan: another replica could be running them. Leases expire instead.
          expect(second.lines.some((l) => l.startsWith('RECOVERED'))).toBe(false);
          await until(async () => {
            const states = await Promise.all(taskIds.map((id) => stateOf(base2, id)));
            return states.every((state) => state === 'TASK_STATE_FAILED');
          });
        }
        for (const taskId of taskIds) {
          const task = (await rpc(base2, 'GetTask', { id: taskId })) as {
            status: { state: string; message?: { parts: Array<{ text?: string }> } };
          };
          expect(task.status.state).toBe('TASK_STATE_FAILED');
          expect(task.status.message?.parts[0]?.text).toBe(
            dialect === 'sqlite' ? INTERRUPTED_REASON : ABANDONED_REASON,
          );

          const records = await listAll(base2, taskId);
          const listed = new Map(records.map((r) => [r.reminder.id, r]));
          expect(listed.size).toBe(records.length);
          const owed = acked.filter((a) => a.taskId === taskId).map((a) => a.id);
          // Zero acknowledged reminders lost.
          expect(owed.filter((id) => !listed.has(id))).toEqual([]);
          for (const r of records) {
            // R27 on FAILED: never surfaced -> DROPPED; surfaced at turn 1 -> EXPIRED.
            const consistent =
              (r.state === 'REMINDER_STATE_DROPPED' && r.firstTurn === undefined) ||
              (r.state === 'REMINDER_STATE_EXPIRED' && r.firstTurn === 1);
            expect({ id: r.reminder.id, consistent, state: r.state }).toEqual({
              id: r.reminder.id,
              consistent: true,
              state: r.state,
            });
          }
        }
      } finally {
        second.child.kill('SIGTERM');
        await exitOf(second.child);
      }
    }, 120_000);
  },
);
