import { TaskState } from '@a2a-js/sdk';
import { ReminderError } from '@a2a-reminders/core';
import type { InjectTaskReminderResponse, TaskReminderRecord } from '@a2a-reminders/proto';
import { ReminderState, TaskReminderSchema } from '@a2a-reminders/proto';
import { equals } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { runPool } from './testing/bounded-pool.js';
import { deployment } from './testing/deployment.js';
import { readEventLog } from './testing/event-log.js';
import { freezeOutsideTransaction } from './testing/freeze-replica.js';
import {
  eventsJson,
  fateProblems,
  listEverywhere,
  recordProblems,
  sameEverywhere,
  stateName,
} from './testing/reminder-fates.js';
import type { Replica } from './testing/replica-set.js';
import { a2aCallOptions, BINDINGS } from './testing/replica-set.js';
import type { TaskStream } from './testing/task-stream.js';
import { delegateStreaming } from './testing/task-stream.js';
import { ABANDONED_REASON } from './worker-server.js';

// Issue 10: replicas on one PostgreSQL database killed with SIGKILL. A
// replica that runs no task dies in the middle of a load of injects: nothing
// it acknowledged is lost and the survivors keep serving (R52, R55). The
// replica running a task dies: a survivor ends the task FAILED once the
// lease runs out, every reminder's fate first (R53, R27).

/** Short, so the killed owner's task ends soon, with room for a live replica on a busy machine. */
const LEASE_MS = 3000;
/** Waits poll a condition up to this long: a hang guard, never a verdict on speed. */
const DEADLINE_MS = 60_000;

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a replica running no task is killed under load', () => {
  const { replicas, db } = deployment({ turnMs: 100, leaseMs: LEASE_MS });

  /** Tasks 0 and 1 run on A, 2 and 3 on B; C runs none and is killed. */
  const TASKS = 4;
  /** Injects per task: below the live quota (64), so none is refused. */
  const PER_TASK = 40;
  const CONCURRENCY = 12;
  /** Acknowledged injects before the kill; the load is still running when it lands. */
  const ACKED_BEFORE_KILL = 48;

  it('loses no acknowledged reminder, and the survivors keep serving the load', async ({
    annotate,
  }) => {
    const [a, b, c] = replicas();
    const streams: TaskStream[] = [];
    for (let t = 0; t < TASKS; t += 1) {
      const runner = t < 2 ? a : b;
      const binding = BINDINGS[t % 3] ?? 'jsonrpc';
      streams.push(await delegateStreaming(await runner.a2a(binding), `Port module ${t}`));
    }

    const sent = new Map<string, string>();
    const acked = new Map<string, { taskId: string; answer: InjectTaskReminderResponse }>();
    const survivorFailures: string[] = [];
    let ackedAfterKill = 0;
    // The kill lands while up to CONCURRENCY - 1 other injects are in flight; new ones wait
    // for it, so some injects are sure to start after it, whatever the machine's speed.
    let killRequested = false;
    let requestKill = (): void => {};
    const killRequest = new Promise<void>((resolve) => {
      requestKill = resolve;
    });
    let markKilled = (): void => {};
    const killed = new Promise<void>((resolve) => {
      markKilled = resolve;
    });
    let cIsDead = false;
    const targets = [a, b, c];
    const load = runPool(TASKS * PER_TASK, CONCURRENCY, async (n) => {
      if (killRequested) await killed;
      const stream = streams[n % TASKS] as TaskStream;
      const replica = targets[n % 3] as Replica;
      const binding = BINDINGS[Math.floor(n / 3) % 3] ?? 'jsonrpc';
      const startedAfterKill = cIsDead;
      const reminder = {
        id: `r-${n}`,
        body: `note ${n}`,
        ttlTurns: n % 2 === 0 ? 1 : 20,
        ...(n % 5 === 0 ? { dedupeKey: `k${n % 3}` } : {}),
      };
      sent.set(reminder.id, stream.taskId);
      try {
        const answer = await replica.reminders[binding].injectTaskReminder(
          { taskId: stream.taskId, reminder },
          { signal: AbortSignal.timeout(DEADLINE_MS) },
        );
        acked.set(reminder.id, { taskId: stream.taskId, answer });
        if (startedAfterKill) ackedAfterKill += 1;
        if (acked.size === ACKED_BEFORE_KILL) {
          killRequested = true;
          requestKill();
        }
      } catch (error) {
        // C's answers may be cut off by the kill: not acknowledged, nothing owed.
        if (replica !== c) {
          survivorFailures.push(`${reminder.id} via ${replica.name}/${binding}: ${error}`);
        }
      }
    });
    await Promise.race([killRequest, load]);
    // SIGKILL: C's in-flight injects are cut off, its connections die with it.
    await c.kill();
    cIsDead = true;
    markKilled();
    await load;

    // The load went on against the survivors, and they refused nothing.
    expect(survivorFailures).toEqual([]);
    expect(ackedAfterKill).toBeGreaterThan(0);
    expect(acked.size).toBeGreaterThanOrEqual(ACKED_BEFORE_KILL);

    const checkListed = (taskId: string, records: readonly TaskReminderRecord[]) => {
      const listed = new Map(records.map((r) => [r.reminder?.id ?? '', r]));
      const lost: string[] = [];
      const changed: string[] = [];
      for (const [id, { taskId: owner, answer }] of acked) {
        if (owner !== taskId) continue;
        const record = listed.get(id);
        const acknowledged = answer.record?.reminder;
        if (record === undefined) lost.push(id);
        else if (
          record.reminder === undefined ||
          acknowledged === undefined ||
          !equals(TaskReminderSchema, record.reminder, acknowledged)
        ) {
          changed.push(id);
        }
      }
      // Zero acknowledged reminders lost, each listed as acknowledged; nothing listed that
      // was not sent to this task.
      expect(lost).toEqual([]);
      expect(changed).toEqual([]);
      expect([...listed.keys()].filter((id) => sent.get(id) !== taskId)).toEqual([]);
    };

    // While the tasks still run (turns go on between two calls, so listings may
    // differ by a turn): every survivor lists them all, each record consistent.
    for (const stream of streams) {
      for (const listing of await listEverywhere([a, b], stream.taskId)) {
        checkListed(stream.taskId, listing.records);
        expect(listing.records.flatMap(recordProblems)).toEqual([]);
      }
    }

    // Then each task is cancelled on its replica: every fate reaches its stream once, in log order.
    for (let t = 0; t < TASKS; t += 1) {
      const stream = streams[t] as TaskStream;
      const runner = t < 2 ? a : b;
      await (await runner.a2a('rest')).cancelTask(
        { tenant: '', id: stream.taskId, metadata: undefined },
        a2aCallOptions(),
      );
      const end = await stream.closed;
      expect(end.error).toBeUndefined();
      expect(end.state).toBe(TaskState.TASK_STATE_CANCELED);
      const log = await readEventLog(db(), stream.taskId);
      expect(log.seqs).toEqual(log.seqs.map((_, i) => i + 1));
      expect(eventsJson(stream.events)).toEqual(eventsJson(log.events));
      const records = sameEverywhere(await listEverywhere([a, b], stream.taskId));
      checkListed(stream.taskId, records);
      expect(fateProblems(stream.events, { allFinal: true, records })).toEqual([]);
    }
    await annotate(
      `replicas-kill (C): ${sent.size} sent, ${acked.size} acknowledged, ${ackedAfterKill} by survivors after the kill`,
    );
  });
});

describe('the replica running a task is killed', () => {
  const { replicas, db } = deployment({ turnMs: 100, leaseMs: LEASE_MS });

  it('R53: a survivor ends the task FAILED once the lease runs out, every fate first (R27)', async ({
    annotate,
  }) => {
    const [a, b, c] = replicas();
    const stream = await delegateStreaming(await a.a2a('grpc'), 'Split the parser module');
    const { taskId } = stream;
    const acked = new Map<string, InjectTaskReminderResponse>();
    const inject = async (
      id: string,
      replica: Replica,
      n: number,
      extra: { ttlTurns: number; dedupeKey?: string },
    ) => {
      const binding = BINDINGS[n % 3] ?? 'jsonrpc';
      const answer = await replica.reminders[binding].injectTaskReminder({
        taskId,
        reminder: { id, body: `note ${id}`, ...extra },
      });
      acked.set(id, answer);
    };
    const listFromB = async () => listEverywhere([b], taskId).then((l) => l[0]?.records ?? []);
    const stateOf = (records: readonly TaskReminderRecord[], id: string) =>
      records.find((r) => r.reminder?.id === id);

    // 1: long-lived reminders (four with dedupe keys), injected on all three; wait until surfaced.
    const first = Array.from({ length: 12 }, (_, n) => `s-${n}`);
    await Promise.all(
      first.map((id, n) =>
        inject(id, [b, c, a][n % 3] as Replica, Math.floor(n / 3), {
          ttlTurns: 20,
          ...(n < 4 ? { dedupeKey: `k${n}` } : {}),
        }),
      ),
    );
    await until('the first reminders to surface', async () => {
      const records = await listFromB();
      return first.every((id) => stateOf(records, id)?.firstTurn !== undefined) ? true : undefined;
    });
    // 2: one-turn reminders; wait until their TTL ended them.
    const second = Array.from({ length: 6 }, (_, n) => `t-${n}`);
    await Promise.all(
      second.map((id, n) => inject(id, [b, c][n % 2] as Replica, n, { ttlTurns: 1 })),
    );
    await until('the one-turn reminders to expire', async () => {
      const records = await listFromB();
      return second.every((id) => stateOf(records, id)?.state === ReminderState.EXPIRED)
        ? true
        : undefined;
    });

    // 3: A stops taking turns (frozen outside any transaction), then gets reminders
    // it can never surface: on B and C, four displacing the first four of step 1.
    await freezeOutsideTransaction(a, db());
    const frozenAt = Date.now();
    const third = Array.from({ length: 12 }, (_, n) => `u-${n}`);
    const refused: string[] = [];
    await Promise.all(
      third.map((id, n) =>
        inject(id, [b, c][n % 2] as Replica, n, {
          ttlTurns: 5,
          ...(n < 4 ? { dedupeKey: `k${n}` } : {}),
        }).catch((error: unknown) => {
          // The lease may run out first on a slow machine; then the task is terminal (R12).
          if (!(error instanceof ReminderError && error.code === 'TASK_TERMINAL')) throw error;
          refused.push(id);
        }),
      ),
    );
    const killedAt = Date.now();
    await a.kill();

    // A survivor ends the task FAILED, saying why (polled from both survivors).
    const failedOn = async (replica: Replica) => {
      const client = await replica.a2a(replica === b ? 'jsonrpc' : 'rest');
      const task = await client.getTask({ tenant: '', id: taskId }, a2aCallOptions());
      return task.status?.state === TaskState.TASK_STATE_FAILED ? task : undefined;
    };
    const failed = await until('the task to be ended FAILED', () => failedOn(b));
    const elapsed = Date.now() - killedAt;
    const reason = failed.status?.message?.parts[0]?.content;
    expect(reason?.$case === 'text' ? reason.value : reason).toBe(ABANDONED_REASON);
    expect((await failedOn(c))?.status).toEqual(failed.status);

    // Every fate is listed, the same on both survivors, and every record is final (R27).
    const records = sameEverywhere(await listEverywhere([b, c], taskId));
    expect(records.map((r) => r.reminder?.id).sort()).toEqual([...acked.keys()].sort());
    expect(records.flatMap(recordProblems)).toEqual([]);
    const fateOf = (id: string) => {
      const r = stateOf(records, id);
      return r === undefined
        ? 'missing'
        : `${stateName(r.state)}${r.displacedBy ? ` by ${r.displacedBy}` : ''}`;
    };
    const unexpected: string[] = [];
    for (const id of acked.keys()) {
      const fate = fateOf(id);
      const allowed = id.startsWith('s-')
        ? // Surfaced: EXPIRED (by the task's end, or its TTL on a slow machine) or displaced by step 3.
          fate === 'EXPIRED' || /^DISPLACED by u-[0-3]$/.test(fate)
        : id.startsWith('t-')
          ? fate === 'EXPIRED'
          : // Never surfaced: DROPPED (R27), or displaced by another of step 3.
            fate === 'DROPPED' || /^DISPLACED by u-[0-3]$/.test(fate);
      if (!allowed) unexpected.push(`${id}: ${fate}`);
    }
    expect(unexpected).toEqual([]);
    for (const r of records) {
      if (r.state !== ReminderState.DROPPED) continue;
      // DROPPED by the end that FAILED the task.
      expect(r.firstTurn).toBeUndefined();
    }

    // The fates are in the event log too, one each, as a stream would carry them (R52);
    // what A's stream carried before the kill is the log's beginning.
    const log = await readEventLog(db(), taskId);
    expect(log.seqs).toEqual(log.seqs.map((_, i) => i + 1));
    expect(fateProblems(log.events, { allFinal: true, records })).toEqual([]);
    const dropped = log.events.filter((e) => e.event.case === 'dropped');
    for (const e of dropped) {
      expect(e.event.case === 'dropped' && e.event.value.taskState).toBe('TASK_STATE_FAILED');
    }
    // Not vacuous: the stream saw the surfaced and expired reminders before the kill.
    expect(stream.events.length).toBeGreaterThan(0);
    expect(eventsJson(stream.events)).toEqual(
      eventsJson(log.events.slice(0, stream.events.length)),
    );
    expect((await stream.closed).error).toBeDefined();

    // The lease is gone, and the ended task refuses new reminders on every survivor (R12).
    const { rows } = await db().query<{ n: string }>(
      'select count(*) as n from a2a_task_leases where task_id = $1',
      [taskId],
    );
    expect(Number(rows[0]?.n)).toBe(0);
    for (const replica of [b, c]) {
      for (const binding of BINDINGS) {
        const refusal = await replica.reminders[binding]
          .injectTaskReminder({
            taskId,
            reminder: { id: `late-${replica.name}-${binding}`, body: 'x' },
          })
          .then(
            () => 'accepted',
            (error: unknown) => (error instanceof ReminderError ? error.code : String(error)),
          );
        expect({ from: `${replica.name}/${binding}`, refusal }).toEqual({
          from: `${replica.name}/${binding}`,
          refusal: 'TASK_TERMINAL',
        });
      }
    }

    const fates = new Map<string, number>();
    for (const r of records) {
      fates.set(stateName(r.state), (fates.get(stateName(r.state)) ?? 0) + 1);
    }
    // Context, not a verdict: an annotation (`--reporter=verbose` shows it).
    await annotate(
      `replicas-kill (A): task FAILED ${elapsed} ms after the kill, ${elapsed + killedAt - frozenAt} ms ` +
        `after the freeze (bound from the last heartbeat: lease ${LEASE_MS} ms + ` +
        `reap ${LEASE_MS / 4} ms + slack); ${refused.length} of step 3 refused; fates ` +
        JSON.stringify(Object.fromEntries(fates)),
    );
  });
});
