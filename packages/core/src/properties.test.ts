import { TaskState } from '@a2a-js/sdk';
import type { InjectTaskReminderResponse } from '@a2a-reminders/proto';
import { ReminderState } from '@a2a-reminders/proto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ReminderError } from './errors.js';
import type { ReminderInit } from './testing/harness.js';
import { harness } from './testing/harness.js';

// Property tests over random interleavings (issue 3, Tests): R13, R15, R17–R23, R27.

const TASKS = ['t0', 't1', 't2'];
const EXPECTED_REFUSALS = new Set([
  'REMINDER_QUOTA_EXCEEDED',
  'REMINDER_ID_CONFLICT',
  'REMINDER_NOT_LIVE',
  'REMINDER_NOT_FOUND',
  'TASK_TERMINAL',
]);
const FINAL_KINDS = new Set(['displaced', 'expired', 'cancelled', 'dropped']);

type Command =
  | { kind: 'inject'; task: number; id: number; key: number; ttl: number; variant: number }
  | { kind: 'cancel'; task: number; id: number }
  | { kind: 'turn'; task: number }
  | { kind: 'end'; task: number };

const task = fc.integer({ min: 0, max: TASKS.length - 1 });
const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('inject' as const),
      task,
      id: fc.integer({ min: 0, max: 11 }),
      key: fc.integer({ min: 0, max: 3 }),
      ttl: fc.integer({ min: 1, max: 3 }),
      variant: fc.integer({ min: 0, max: 1 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('cancel' as const),
      task,
      id: fc.integer({ min: 0, max: 11 }),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('turn' as const), task }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('end' as const), task }) },
);

function reminderOf(c: Extract<Command, { kind: 'inject' }>): ReminderInit {
  return {
    id: `r${c.id}`,
    body: `body ${c.id} v${c.variant}`,
    dedupeKey: c.key === 0 ? '' : `k${c.key}`,
    ttlTurns: c.ttl,
  };
}

async function run(chunks: Command[][]) {
  const h = harness({ limits: { maxLiveRemindersPerTask: 4 } });
  const sinks = new Map<string, ReturnType<typeof h.openBus>>();
  const contexts = new Map<string, ReturnType<typeof h.requestContext>>();
  for (const id of TASKS) {
    const t = await h.saveTask(id, TaskState.TASK_STATE_WORKING);
    sinks.set(id, h.openBus(id));
    contexts.set(id, h.requestContext(t));
  }
  const accepted = new Map<
    string,
    { reminder: ReminderInit; response: InjectTaskReminderResponse }
  >();
  const surfacings = new Map<string, number>();
  const ttl = new Map<string, number>();

  const exec = async (c: Command): Promise<void> => {
    const taskId = TASKS[c.task] ?? 't0';
    const sink = sinks.get(taskId);
    const rc = contexts.get(taskId);
    if (sink === undefined || rc === undefined) throw new Error('setup');
    try {
      if (c.kind === 'inject') {
        const reminder = reminderOf(c);
        const response = await h.inject(taskId, reminder);
        const key = `${taskId}/${reminder.id}`;
        if (!accepted.has(key)) {
          accepted.set(key, { reminder, response });
          ttl.set(key, c.ttl);
        }
      } else if (c.kind === 'cancel') {
        await h.cancel(taskId, `r${c.id}`);
      } else if (c.kind === 'turn') {
        const turn = await h.service.beginTurn(rc, sink.bus);
        const ids = turn.reminders.map((r) => r.id);
        // No reminder surfaced twice in one turn.
        expect(new Set(ids).size).toBe(ids.length);
        for (const id of ids) {
          const key = `${taskId}/${id}`;
          surfacings.set(key, (surfacings.get(key) ?? 0) + 1);
        }
      } else {
        await h.service.endTask(rc, sink.bus, TaskState.TASK_STATE_COMPLETED);
      }
    } catch (error) {
      if (!(error instanceof ReminderError) || !EXPECTED_REFUSALS.has(error.code)) throw error;
    }
  };

  for (const chunk of chunks) {
    await Promise.all(chunk.map(exec));
    for (const taskId of TASKS) {
      // R15: at most one live reminder per dedupe key.
      const live = (await h.list(taskId)).reminders.filter(
        (r) => r.state === ReminderState.PENDING || r.state === ReminderState.ACTIVE,
      );
      const keys = live.map((r) => r.reminder?.dedupeKey).filter((k) => k !== '');
      expect(new Set(keys).size).toBe(keys.length);
      // R17: never above the quota.
      expect(live.length).toBeLessThanOrEqual(4);
    }
  }

  // R13: identical re-sends return the original response and change nothing.
  const before = await Promise.all(TASKS.map((t) => h.list(t)));
  const eventCounts = TASKS.map((t) => sinks.get(t)?.events.length);
  for (const [key, { reminder, response }] of accepted) {
    const taskId = key.split('/')[0] ?? '';
    expect(await h.inject(taskId, reminder)).toEqual(response);
  }
  expect(await Promise.all(TASKS.map((t) => h.list(t)))).toEqual(before);
  expect(TASKS.map((t) => sinks.get(t)?.events.length)).toEqual(eventCounts);

  // End every task, then check every reminder's fate.
  for (const taskId of TASKS) {
    const sink = sinks.get(taskId);
    const rc = contexts.get(taskId);
    if (sink && rc) await h.service.endTask(rc, sink.bus, TaskState.TASK_STATE_COMPLETED);
  }
  for (const taskId of TASKS) {
    const records = (await h.list(taskId)).reminders;
    const ids = records.map((r) => r.reminder?.id ?? '');
    // No reminder lost: every accepted one is listed, once.
    const acceptedHere = [...accepted.keys()]
      .filter((k) => k.startsWith(`${taskId}/`))
      .map((k) => k.slice(taskId.length + 1));
    expect([...ids].sort()).toEqual([...acceptedHere].sort());
    const finals = new Map<string, number>();
    for (const batch of sinks.get(taskId)?.batches() ?? []) {
      for (const e of batch) {
        if (FINAL_KINDS.has(e.event.case ?? ''))
          finals.set(e.reminderId, (finals.get(e.reminderId) ?? 0) + 1);
      }
    }
    for (const r of records) {
      const id = r.reminder?.id ?? '';
      const key = `${taskId}/${id}`;
      // R18, R27: every reminder ends in exactly one final state, announced once.
      expect([ReminderState.PENDING, ReminderState.ACTIVE]).not.toContain(r.state);
      expect(finals.get(id)).toBe(1);
      // R20: never surfaced more than ttlTurns times.
      expect(surfacings.get(key) ?? 0).toBeLessThanOrEqual(ttl.get(key) ?? 0);
      expect(r.reminder?.ttlTurns).toBe(ttl.get(key));
    }
  }
}

describe('properties', () => {
  it('R13, R15, R17–R20, R27: random interleavings across tasks keep every invariant', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(command, { minLength: 1, maxLength: 6 }), { maxLength: 25 }),
        run,
      ),
      { numRuns: 150 },
    );
  });
});
