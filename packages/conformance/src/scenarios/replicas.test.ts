import { TaskState } from '@a2a-js/sdk';
import type { ReminderClient } from '@a2a-reminders/core';
import { ReminderState } from '@a2a-reminders/proto';
import { afterAll, expect } from 'vitest';
import { forwardsOf } from '../harness/delegation.js';
import { errorSummary, eventSummary, recordSummary } from '../harness/observe.js';
import { ABANDONED_REASON, ReplicaHost, replicaOf } from '../harness/replica-stack.js';
import { verifies } from '../harness/verifies.js';
import { poll, rejection } from '../harness/wait.js';

// Spec: Multi-replica deployments. Each case runs two replicas of one agent
// on one PostgreSQL database, each with its own connections, SDK task store,
// reminder service, LISTEN connection and servers: replica A is the case's
// own stack (its arm's clients in `wire`), replica B another stack on the
// same arm. Tasks are created on A, so A runs their executions and holds
// their streams. On the memory and SQLite projects these cases are reported
// skipped (requirements.ts: `stores`).

const replicas = new ReplicaHost();
afterAll(() => replicas.drop());

/** Lease length for R53: short, so a dead replica's task is ended soon; long next to a heartbeat. */
const LEASE_MS = 2000;

/** The same call's outcome on both replicas: its answer, or what its error shows a caller. */
async function onBoth<T>(
  a: ReminderClient,
  b: ReminderClient,
  call: (client: ReminderClient) => Promise<T>,
): Promise<[unknown, unknown]> {
  const outcome = (run: Promise<T>) =>
    run.then(
      (answer) => ({ answer }),
      (error: unknown) => ({ error: errorSummary(error) }),
    );
  return [await outcome(call(a)), await outcome(call(b))];
}

verifies(
  'R52-replica-delivery',
  async ({ arm, wire }) => {
    const a = replicaOf(wire.stack);
    await using b = await replicas.wire(arm, 'B');
    const taskId = await wire.tasks.create();
    const watch = await wire.tasks.subscribe(taskId);
    // Writers on both replicas at once: B injects (every third displacing on
    // one key), A injects on the same key and takes turns. Their batches
    // interleave in the task's log in whatever order they committed.
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < 12; i += 1) {
      writes.push(
        b.client.injectTaskReminder({
          taskId,
          reminder: { id: `b${i}`, body: `from B ${i}`, dedupeKey: i % 3 === 0 ? 'k' : '' },
        }),
      );
      if (i % 4 === 0) {
        writes.push(
          wire.client.injectTaskReminder({
            taskId,
            reminder: { id: `a${i}`, body: `from A ${i}`, dedupeKey: 'k' },
          }),
        );
      }
      if (i % 5 === 0) writes.push(wire.tasks.turn(taskId));
    }
    await Promise.all(writes);
    // Last, from B: a displacement whose batch closes the log, so a batch
    // delivered twice would show before it.
    await b.client.injectTaskReminder({
      taskId,
      reminder: { id: 'last', body: 'from B, last', dedupeKey: 'k' },
    });
    const logged = (await a.loggedBatches(taskId)).map((batch) => batch.map(eventSummary));
    expect(logged.length).toBeGreaterThan(5);
    await watch.until(
      () => watch.batches().length >= logged.length,
      `the ${logged.length} logged batches on A's stream`,
    );
    expect(watch.batches().map((batch) => batch.map(eventSummary))).toEqual(logged);
    expect(logged.at(-1)?.at(-1)).toMatch(/^displaced:/);
  },
  { stack: () => replicas.stack('A') },
);

verifies(
  'R54-replica-catch-up',
  async ({ arm, wire }) => {
    const a = replicaOf(wire.stack);
    await using b = await replicas.wire(arm, 'B');
    const taskId = await wire.tasks.create();
    const watch = await wire.tasks.subscribe(taskId);
    const inject = (id: string) =>
      b.client.injectTaskReminder({ taskId, reminder: { id, body: id, dedupeKey: 'k' } });
    await inject('before');
    // Cut A's LISTEN connection, then commit on B while A has no session
    // listening: that step's notification reaches nobody on A. A reconnect
    // can beat the commit, so the case retries until one commit provably
    // happened while A had no listener session at all.
    let deafCommits = 0;
    let deafAttempts = 0;
    while (deafCommits === 0) {
      deafAttempts += 1;
      if (deafAttempts > 5) throw new Error('A reconnected before every commit of five attempts');
      await poll(() => a.changeSignal.listening, 'A to listen');
      expect(await a.cutListener()).toBe(1);
      await poll(
        async () => !a.changeSignal.listening && (await a.listenerSessions()) === 0,
        "A's LISTEN connection to be gone",
      );
      await inject(`while-deaf-${deafAttempts}`);
      if ((await a.listenerSessions()) === 0) deafCommits += 1;
    }
    expect(a.errors.length).toBeGreaterThan(0);
    await poll(() => a.changeSignal.listening, 'A to listen again');
    await inject('after');
    const logged = (await a.loggedBatches(taskId)).map((batch) => batch.map(eventSummary));
    await watch.until(
      () => watch.batches().length >= logged.length,
      `the ${logged.length} logged batches on A's stream`,
    );
    // What A missed came first, in log order, then what followed; each once.
    expect(watch.batches().map((batch) => batch.map(eventSummary))).toEqual(logged);
    const events = logged.flat();
    expect(events[0]).toMatch(/^displaced:before#k /);
    expect(events.at(-1)).toMatch(/^displaced:while-deaf-\d+#k /);
    expect(events).toHaveLength(deafAttempts + 1);
  },
  { stack: () => replicas.stack('A') },
);

verifies(
  'R55-same-answers-on-every-replica',
  async ({ arm, wire }) => {
    await using b = await replicas.wire(arm, 'B');
    const taskId = await wire.tasks.create();
    const both = <T>(call: (client: ReminderClient) => Promise<T>) =>
      onBoth(wire.client, b.client, call);

    // R13: a re-send answers the first response on either replica.
    const r1 = { id: 'r1', body: 'first', dedupeKey: 'k', ttlTurns: 2, source: 'monitor' };
    const accepted = await wire.client.injectTaskReminder({ taskId, reminder: r1 });
    expect(await b.client.injectTaskReminder({ taskId, reminder: r1 })).toEqual(accepted);
    // R15, R16: B's inject displaces A's reminder; A's re-send answers B's response.
    const r2 = { id: 'r2', body: 'second', dedupeKey: 'k' };
    const displacing = await b.client.injectTaskReminder({ taskId, reminder: r2 });
    expect(displacing.displacedReminderIds).toEqual(['r1']);
    expect(await wire.client.injectTaskReminder({ taskId, reminder: r2 })).toEqual(displacing);
    // R14: the same conflict.
    const [conflictA, conflictB] = await both((c) =>
      c.injectTaskReminder({ taskId, reminder: { ...r2, body: 'changed' } }),
    );
    expect(conflictB).toEqual(conflictA);
    expect(conflictA).toMatchObject({ error: { code: 'REMINDER_ID_CONFLICT' } });

    // R34, R49: the same records and pages after a turn on A, a page token of one replica working on the other.
    await wire.tasks.turn(taskId);
    const [listA, listB] = await both((c) => c.listTaskReminders({ taskId }));
    expect(listB).toEqual(listA);
    const listed = (await wire.client.listTaskReminders({ taskId })).reminders;
    expect(listed.map((r) => [r.reminder?.id, r.state])).toEqual([
      ['r1', ReminderState.DISPLACED],
      ['r2', ReminderState.ACTIVE],
    ]);
    const first = await wire.client.listTaskReminders({ taskId, pageSize: 1 });
    const [nextA, nextB] = await both((c) =>
      c.listTaskReminders({ taskId, pageSize: 1, pageToken: first.nextPageToken }),
    );
    expect(nextB).toEqual(nextA);
    expect(nextA).toMatchObject({ answer: { nextPageToken: '' } });

    // R23, R24: cancelled on B, cancelled again on A: the same record.
    const cancelled = await b.client.cancelTaskReminder({ taskId, reminderId: 'r2' });
    expect(cancelled.record?.state).toBe(ReminderState.CANCELLED);
    expect(await wire.client.cancelTaskReminder({ taskId, reminderId: 'r2' })).toEqual(cancelled);
    // R25, R26, R7: the same refusals.
    for (const reminderId of ['r1', 'unknown']) {
      const [onA, onB] = await both((c) => c.cancelTaskReminder({ taskId, reminderId }));
      expect(onB).toEqual(onA);
      expect(onA).toHaveProperty('error');
    }
    const [missingA, missingB] = await both((c) =>
      c.injectTaskReminder({ taskId: 'no-such-task', reminder: { id: 'x', body: 'x' } }),
    );
    expect(missingB).toEqual(missingA);
    expect(missingA).toMatchObject({ error: { code: 'TASK_NOT_FOUND' } });

    // R12, R27: once the task ended on A, both refuse and list the same fates.
    await wire.tasks.end(taskId, 'COMPLETED');
    const [terminalA, terminalB] = await both((c) =>
      c.injectTaskReminder({ taskId, reminder: { id: 'late', body: 'late' } }),
    );
    expect(terminalB).toEqual(terminalA);
    expect(terminalA).toMatchObject({ error: { code: 'TASK_TERMINAL' } });
    const [endedA, endedB] = await both((c) => c.listTaskReminders({ taskId }));
    expect(endedB).toEqual(endedA);
  },
  { stack: () => replicas.stack('A') },
);

verifies(
  'R53-task-leases',
  async ({ arm, wire }) => {
    const a = replicaOf(wire.stack);
    await using b = await replicas.wire(arm, 'B', { leaseMs: LEASE_MS });
    const reaper = replicaOf(b.stack);
    const taskId = await wire.tasks.create();
    await b.client.injectTaskReminder({
      taskId,
      reminder: { id: 'seen', body: 'surfaced once', ttlTurns: 3 },
    });
    await wire.tasks.turn(taskId);
    await b.client.injectTaskReminder({
      taskId,
      reminder: { id: 'unseen', body: 'never surfaced' },
    });

    // A live replica keeps its task: A heartbeats, then B reaps.
    await a.keeper.reapNow();
    await reaper.keeper.reapNow();
    expect((await b.tasks.getTask(taskId)).status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(reaper.endedTasks).toEqual([]);

    // A stops as a dead process does: no heartbeat, no LISTEN. Its lease
    // runs out and B's own timer ends the task.
    await a.crash();
    // The reaper reports a task once it has also released its claim, a
    // database round trip after the task is stored FAILED: wait for both.
    await poll(
      async () =>
        reaper.endedTasks.length > 0 &&
        (await b.tasks.getTask(taskId)).status?.state === TaskState.TASK_STATE_FAILED,
      `B to end task ${taskId} FAILED and report it`,
    );
    const task = await b.tasks.getTask(taskId);
    const text = task.status?.message?.parts.map((p) =>
      p.content?.$case === 'text' ? p.content.value : '',
    );
    expect(text).toEqual([ABANDONED_REASON]);
    expect(reaper.endedTasks.map((key) => key.taskId)).toEqual([taskId]);

    // R27: its reminders were ended before the task was stored FAILED.
    const records = (await b.client.listTaskReminders({ taskId })).reminders;
    expect(records.map(recordSummary)).toMatchObject([
      { reminder: { id: 'seen' }, state: 'REMINDER_STATE_EXPIRED', hasEndTime: true },
      { reminder: { id: 'unseen' }, state: 'REMINDER_STATE_DROPPED', hasEndTime: true },
    ]);
    expect((await a.loggedBatches(taskId)).at(-1)?.map(eventSummary)).toEqual([
      'expired:seen {"lastTurn":1,"turnsSurfaced":1,"taskEnded":true}',
      'dropped:unseen {"taskState":"TASK_STATE_FAILED"}',
    ]);
    // R55: listed and refused the same on both replicas.
    expect(await wire.client.listTaskReminders({ taskId })).toEqual(
      await b.client.listTaskReminders({ taskId }),
    );
    const refusal = errorSummary(
      await rejection(
        wire.client.injectTaskReminder({ taskId, reminder: { id: 'late', body: 'late' } }),
      ),
    );
    expect(refusal).toMatchObject({ code: 'TASK_TERMINAL' });
  },
  { stack: () => replicas.stack('A', { leaseMs: LEASE_MS }) },
);

verifies(
  'R64-forwarder-learns',
  async ({ arm, wire }) => {
    await using b = await replicas.wire(arm, 'B');
    const parentTaskId = await wire.tasks.create();
    const subTaskId = await wire.tasks.create();
    const watch = await wire.tasks.subscribe(parentTaskId);
    const forwarded = (summary: string) => () => forwardsOf(watch.events()).includes(summary);
    // A runs the parent task and forwards it into a sub-task, through the arm's client.
    const execution = wire.stack.executor.execution(parentTaskId);
    const forwarding = wire.reminders.forwardReminders(execution.requestContext, execution.bus, {
      client: wire.client,
      taskId: subTaskId,
      // Short, so the case is quick; nothing waits on it but the observed forward events.
      syncIntervalMs: 50,
    });
    try {
      // Accepted on B, which wakes no one on A: A finds it at its next read of the store.
      await b.client.injectTaskReminder({
        taskId: parentTaskId,
        reminder: { id: 'ci', body: 'CI is red', source: 'monitor' },
      });
      await watch.until(forwarded('ci:PENDING'), "the copy's forward event on A's stream");
      const copy = (await wire.client.listTaskReminders({ taskId: subTaskId })).reminders[0];
      expect(copy?.reminder?.provenance?.hops.map((h) => [h.taskId, h.reminderId])).toEqual([
        [parentTaskId, 'ci'],
      ]);
      // Cancelled on B: the copy follows at A's next read (R63).
      await b.client.cancelTaskReminder({ taskId: parentTaskId, reminderId: 'ci' });
      await watch.until(forwarded('ci:CANCELLED'), "the copy's cancel on A's stream");
      await forwarding.close();
      const [subCopy] = (await b.client.listTaskReminders({ taskId: subTaskId })).reminders;
      expect(subCopy?.state).toBe(ReminderState.CANCELLED);
      // Both replicas list the original's forwards the same.
      const [onA, onB] = await onBoth(wire.client, b.client, (c) =>
        c.listTaskReminders({ taskId: parentTaskId }),
      );
      expect(onB).toEqual(onA);
      const [original] = (await b.client.listTaskReminders({ taskId: parentTaskId })).reminders;
      expect(original?.forwards.map((f) => [f.taskId, f.reminderId, f.state])).toEqual([
        [subTaskId, 'ci', ReminderState.CANCELLED],
      ]);
    } finally {
      await forwarding.close().catch(() => undefined);
    }
  },
  { variant: 'replicas', stack: () => replicas.stack('A') },
);
