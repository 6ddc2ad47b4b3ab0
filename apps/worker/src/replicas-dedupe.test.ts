import { TaskState } from '@a2a-js/sdk';
import { ReminderState } from '@a2a-reminders/proto';
import { describe, expect, it } from 'vitest';
import { runPool } from './testing/bounded-pool.js';
import { deployment, LIVE_LEASE_MS } from './testing/deployment.js';
import { readEventLog } from './testing/event-log.js';
import { eventsJson, listEverywhere, sameEverywhere } from './testing/reminder-fates.js';
import type { Replica } from './testing/replica-set.js';
import { a2aCallOptions, BINDINGS } from './testing/replica-set.js';
import { delegateStreaming, isTurnUpdate } from './testing/task-stream.js';

// Issue 10, R15/R16 across replicas: 1,000 concurrent injects with one
// dedupeKey, spread over three replicas and three bindings, into one running
// task. The store serializes them per task, so acceptance order is one
// chain: each accepted reminder displaces the one accepted just before it.
// The answers alone reveal that chain, and everything else is checked
// against it: one live reminder at the end of it, the retained records its
// tail (R48 keeps 128 finals), and the stream one fate per reminder in
// chain order, exactly as the log holds them (R52).

const INJECTS = 1000;
/**
 * All in flight at once, as the issue asks. Each replica queues its share
 * for the task in process (the store's per-task queue), so the burst waits
 * there, not for pooled connections, however slow the machine.
 */
const CONCURRENCY = INJECTS;
const KEY = 'build-status';
/** R48's default cap on a task's retained final records. */
const RETAINED_FINALS = 128;

describe('one dedupeKey hammered on three replicas', () => {
  // Turns parked after the first: no turn surfaces or expires anything meanwhile,
  // so "one live reminder" is a fact to check, not a race against its TTL.
  const { replicas, db } = deployment({ turnMs: 600_000, leaseMs: LIVE_LEASE_MS });

  it('R15, R16: exactly one stays live; every other is displaced once, by its successor', async () => {
    const all = replicas();
    const [a, b, c] = all;
    const stream = await delegateStreaming(await a.a2a('rest'), 'Bump the toolchain');
    const { taskId } = stream;
    await stream.until((item) => isTurnUpdate(item, 1), 'turn 1');

    const targets = [a, b, c];
    const displacedOf = new Map<string, readonly string[]>();
    const failures: string[] = [];
    const states = new Set<string>();
    await runPool(INJECTS, CONCURRENCY, async (n) => {
      const replica = targets[n % 3] as Replica;
      const binding = BINDINGS[Math.floor(n / 3) % 3] ?? 'jsonrpc';
      const id = `d-${n}`;
      try {
        const answer = await replica.reminders[binding].injectTaskReminder({
          taskId,
          reminder: { id, body: `status ${n}`, dedupeKey: KEY },
        });
        displacedOf.set(id, answer.displacedReminderIds);
        states.add(ReminderState[answer.record?.state ?? ReminderState.UNSPECIFIED] ?? '?');
      } catch (error) {
        failures.push(`${id} via ${replica.name}/${binding}: ${error}`);
      }
    });
    // Every inject answered success: displaced reminders do not count toward the quota (R17).
    expect(failures).toEqual([]);
    expect([...states]).toEqual(['PENDING']);

    // The chain: one answer displaced nothing (the first accepted), every other exactly one.
    const successor = new Map<string, string>();
    const firsts: string[] = [];
    for (const [id, displaced] of displacedOf) {
      expect({ id, displaced: displaced.length <= 1 }).toEqual({ id, displaced: true });
      const [previous] = displaced;
      if (previous === undefined) firsts.push(id);
      else {
        // Displaced once: no two answers name the same predecessor.
        expect(successor.has(previous)).toBe(false);
        successor.set(previous, id);
      }
    }
    expect(firsts).toHaveLength(1);
    const chain = [firsts[0] ?? ''];
    for (let next = successor.get(chain[0] ?? ''); next !== undefined; next = successor.get(next)) {
      chain.push(next);
    }
    // It runs through all 1,000: the displaced and the one live cover every id exactly once.
    expect(chain).toHaveLength(INJECTS);
    expect(new Set(chain).size).toBe(INJECTS);
    const live = chain.at(-1) ?? '';

    // Exactly one live reminder, the chain's last, and every replica says so (R55).
    const liveListings = await listEverywhere(all, taskId, true);
    for (const listing of liveListings) {
      expect({
        from: listing.from,
        live: listing.records.map((r) => [r.reminder?.id, ReminderState[r.state]]),
      }).toEqual({ from: listing.from, live: [[live, 'PENDING']] });
    }
    // All records: the chain's tail, each displaced by its successor (R48 purged the rest).
    const records = sameEverywhere(await listEverywhere(all, taskId));
    const tail = chain.slice(-(RETAINED_FINALS + 1));
    expect(records.map((r) => r.reminder?.id)).toEqual(tail);
    expect(records.map((r) => [ReminderState[r.state], r.displacedBy])).toEqual(
      tail.map((id) => (id === live ? ['PENDING', ''] : ['DISPLACED', successor.get(id) ?? '?'])),
    );

    // The task ends (cancelled where it runs): the live one is DROPPED (never surfaced, R27).
    await (await a.a2a('grpc')).cancelTask(
      { tenant: '', id: taskId, metadata: undefined },
      a2aCallOptions(),
    );
    const end = await stream.closed;
    expect(end.error).toBeUndefined();
    expect(end.state).toBe(TaskState.TASK_STATE_CANCELED);

    // The stream: one fate per reminder, in chain order, exactly as the log holds them.
    const log = await readEventLog(db(), taskId);
    expect(log.seqs).toEqual(log.seqs.map((_, i) => i + 1));
    expect(eventsJson(stream.events)).toEqual(eventsJson(log.events));
    expect(
      stream.events.map((e) => {
        const detail = e.event.case === 'displaced' ? e.event.value.displacedBy : '';
        return `${e.event.case}:${e.reminderId}${detail ? `>${detail}` : ''}`;
      }),
    ).toEqual(
      chain.map((id) => (id === live ? `dropped:${id}` : `displaced:${id}>${successor.get(id)}`)),
    );

    const after = await listEverywhere([c], taskId);
    expect(after[0]?.records.map((r) => r.reminder?.id)).toEqual(chain.slice(-RETAINED_FINALS));
    expect(after[0]?.records.at(-1)?.state).toBe(ReminderState.DROPPED);
  });
});
