import { TaskState } from '@a2a-js/sdk';
import { ReminderError } from '@a2a-reminders/core';
import type {
  CancelTaskReminderResponse,
  InjectTaskReminderRequestSchema,
  InjectTaskReminderResponse,
  TaskReminderRecord,
} from '@a2a-reminders/proto';
import {
  CancelTaskReminderResponseSchema,
  InjectTaskReminderResponseSchema,
  ReminderState,
} from '@a2a-reminders/proto';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { toJson } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { runPool } from './testing/bounded-pool.js';
import { deployment, LIVE_LEASE_MS } from './testing/deployment.js';
import { readEventLog } from './testing/event-log.js';
import {
  eventsJson,
  fateProblems,
  listEverywhere,
  recordsJson,
  sameEverywhere,
  stateName,
} from './testing/reminder-fates.js';
import type { Replica } from './testing/replica-set.js';
import { a2aCallOptions, BINDINGS } from './testing/replica-set.js';
import { delegateStreaming } from './testing/task-stream.js';

// Issue 10, R52 and R55 across real processes: three worker replicas on one
// PostgreSQL database. A task delegated with a streaming SendMessage runs on
// replica A; reminders injected on all three replicas over all three
// bindings reach A's stream exactly once each, in the order the store
// committed them (the event log), and every replica lists the same records.

/** Below the live quota (64, R17), so no inject is refused. */
const INJECTS = 60;
const CONCURRENCY = 6;

type ReminderInit = NonNullable<
  MessageInitShape<typeof InjectTaskReminderRequestSchema>['reminder']
>;

/**
 * A mix of fates: one in four shares one of three dedupe keys (and lives 20
 * turns, so a later one with its key usually displaces it); one in four
 * lives 20 turns (EXPIRED with `taskEnded` when the task is cancelled);
 * the rest live one turn (EXPIRED by their TTL, or DROPPED if still
 * pending at the cancel). Bodies avoid the words the scripted model acts on.
 */
function reminderOf(n: number): ReminderInit & { id: string } {
  const id = `r-${n}`;
  if (n % 4 === 0) return { id, body: `note ${n}`, dedupeKey: `k${(n / 4) % 3}`, ttlTurns: 20 };
  if (n % 4 === 1) return { id, body: `note ${n}`, ttlTurns: 20, source: 'watcher' };
  return { id, body: `note ${n}`, ttlTurns: 1 };
}

/** A call's answer as comparable text: the response as ProtoJSON, or the refusal's code. */
async function outcomeOf(
  call: Promise<InjectTaskReminderResponse | CancelTaskReminderResponse>,
): Promise<string> {
  try {
    const response = await call;
    return response.$typeName === 'a2a.reminders.v1.CancelTaskReminderResponse'
      ? JSON.stringify(toJson(CancelTaskReminderResponseSchema, response))
      : JSON.stringify(toJson(InjectTaskReminderResponseSchema, response));
  } catch (error) {
    if (error instanceof ReminderError) return error.code;
    throw error;
  }
}

describe('three replicas on one PostgreSQL database: a task stream', () => {
  const { replicas, db } = deployment({ turnMs: 100, leaseMs: LIVE_LEASE_MS });

  it('R52, R55: the stream on A carries every fate once, in log order; every replica lists the same', async ({
    annotate,
  }) => {
    const all = replicas();
    const [a, b, c] = all;
    const stream = await delegateStreaming(await a.a2a('jsonrpc'), 'Refactor the config loader');
    const { taskId } = stream;

    // Round-robin over B, C, A, and over the bindings within each (all nine pairs).
    const targets = [b, c, a];
    const route = (n: number) => ({
      replica: targets[n % 3] as Replica,
      binding: BINDINGS[Math.floor(n / 3) % 3] ?? 'jsonrpc',
    });
    const answers = new Map<string, InjectTaskReminderResponse>();
    const failures: string[] = [];
    await runPool(INJECTS, CONCURRENCY, async (n) => {
      const { replica, binding } = route(n);
      const reminder = reminderOf(n);
      try {
        const answer = await replica.reminders[binding].injectTaskReminder({ taskId, reminder });
        answers.set(reminder.id, answer);
      } catch (error) {
        failures.push(`${reminder.id} via ${replica.name}/${binding}: ${String(error)}`);
      }
    });
    expect(failures).toEqual([]);

    // R14, R55: re-sending an id with other content is refused alike on every replica and binding.
    const conflicts = new Set<string>();
    for (const replica of all) {
      for (const binding of BINDINGS) {
        const reminder = { ...reminderOf(0), body: 'other content' };
        conflicts.add(
          await outcomeOf(replica.reminders[binding].injectTaskReminder({ taskId, reminder })),
        );
      }
    }
    expect([...conflicts]).toEqual(['REMINDER_ID_CONFLICT']);

    // R23, R24, R55: a reminder injected on B and cancelled on C; the same cancel then answers
    // the same on every replica and binding (the record unchanged, or the same refusal if its
    // turns ran out first on a slow machine).
    const cancelMe = { id: 'x-cancel', body: 'cancel me', ttlTurns: 20 };
    answers.set(
      cancelMe.id,
      await b.reminders.rest.injectTaskReminder({ taskId, reminder: cancelMe }),
    );
    const cancelRequest = { taskId, reminderId: cancelMe.id };
    const cancelOutcome = await outcomeOf(c.reminders.grpc.cancelTaskReminder(cancelRequest));
    for (const replica of all) {
      for (const binding of BINDINGS) {
        const again = await outcomeOf(replica.reminders[binding].cancelTaskReminder(cancelRequest));
        expect({ from: `${replica.name}/${binding}`, again }).toEqual({
          from: `${replica.name}/${binding}`,
          again: cancelOutcome,
        });
      }
    }

    // A last few, usually still pending when the cancel follows (DROPPED then, R27).
    await Promise.all(
      [b, c, a].map(async (replica, n) => {
        const reminder = { id: `late-${n}`, body: `late note ${n}` };
        const binding = BINDINGS[n] ?? 'jsonrpc';
        answers.set(
          reminder.id,
          await replica.reminders[binding].injectTaskReminder({ taskId, reminder }),
        );
      }),
    );
    // Cancel on A: reminders still live end now (R27), before the terminal update.
    const cancelled = await (await a.a2a('jsonrpc')).cancelTask(
      { tenant: '', id: taskId, metadata: undefined },
      a2aCallOptions(),
    );
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const end = await stream.closed;
    expect(end.error).toBeUndefined();
    expect(end.state).toBe(TaskState.TASK_STATE_CANCELED);

    // R52: exactly the log's events, in the log's order (not trimmed: it starts at 1).
    const log = await readEventLog(db(), taskId);
    expect(log.seqs).toEqual(log.seqs.map((_, i) => i + 1));
    expect(eventsJson(stream.events)).toEqual(eventsJson(log.events));

    // R55: the same records from every replica over every binding.
    const records = sameEverywhere(await listEverywhere(all, taskId));
    expect(records.map((r) => r.reminder?.id).sort()).toEqual([...answers.keys()].sort());
    expect(records.every((r) => r.taskId === taskId)).toBe(true);

    // Every fate once, each reminder's events a valid sequence that the list agrees with.
    expect(fateProblems(stream.events, { allFinal: true, records })).toEqual([]);

    // R16: each answer's displaced ids are the records its reminder displaced.
    const displacedBy = new Map<string, string>();
    for (const [id, answer] of answers) {
      for (const displaced of answer.displacedReminderIds) {
        expect(displacedBy.has(displaced)).toBe(false);
        displacedBy.set(displaced, id);
      }
    }
    const listedDisplaced = records
      .filter((r) => r.state === ReminderState.DISPLACED)
      .map((r): [string, string] => [r.reminder?.id ?? '', r.displacedBy]);
    expect(new Map(listedDisplaced)).toEqual(displacedBy);

    // R49, R55: a page token one replica issued continues the walk on any other.
    const walked: TaskReminderRecord[] = [];
    let pageToken = '';
    for (let hop = 0; hop === 0 || pageToken !== ''; hop += 1) {
      const replica = all[hop % 3] as Replica;
      const binding = BINDINGS[Math.floor(hop / 3) % 3] ?? 'jsonrpc';
      const page = await replica.reminders[binding].listTaskReminders({
        taskId,
        pageSize: 7,
        pageToken,
      });
      walked.push(...page.reminders);
      pageToken = page.nextPageToken;
    }
    expect(recordsJson(walked)).toEqual(recordsJson(records));

    // R13 + R55: re-sending each inject to another replica and binding answers the original.
    const replays: string[] = [];
    await runPool(INJECTS, CONCURRENCY, async (n) => {
      const { replica, binding } = route(n + 4);
      const reminder = reminderOf(n);
      const replay = await replica.reminders[binding].injectTaskReminder({ taskId, reminder });
      const original = answers.get(reminder.id);
      const same =
        original !== undefined &&
        JSON.stringify(toJson(InjectTaskReminderResponseSchema, replay)) ===
          JSON.stringify(toJson(InjectTaskReminderResponseSchema, original));
      if (!same) replays.push(`${reminder.id} via ${replica.name}/${binding}`);
    });
    expect(replays).toEqual([]);

    const fates = new Map<string, number>();
    for (const r of records)
      fates.set(stateName(r.state), (fates.get(stateName(r.state)) ?? 0) + 1);
    // Context, not a verdict: an annotation (`--reporter=verbose` shows it).
    await annotate(
      `replicas-stream: ${stream.events.length} events in ${log.seqs.length} batches; fates ` +
        JSON.stringify(Object.fromEntries(fates)),
    );
  });
});
