import type { Task } from '@a2a-js/sdk';
import { SendMessageRequest, TaskState } from '@a2a-js/sdk';
import { A2AError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { resolveUserScope } from '@a2a-js/sdk/server';
import type { ReminderClient, ReminderStoreKey } from '@a2a-reminders/core';
import { LeaseLostError, UNSAVED_REASON } from '@a2a-reminders/database';
import { ReminderState } from '@a2a-reminders/proto';
import { afterAll, expect } from 'vitest';
import { SDK_BINDING_OF } from '../harness/arms.js';
import { captureConsoleErrors } from '../harness/console-capture.js';
import { forwardsOf } from '../harness/delegation.js';
import { errorSummary, eventSummary, recordSummary } from '../harness/observe.js';
import { rawJsonRpc } from '../harness/raw-wire.js';
import type { Replica } from '../harness/replica-stack.js';
import {
  ABANDONED_REASON,
  anonymousContext,
  ReplicaHost,
  replicaOf,
} from '../harness/replica-stack.js';
import { verifies } from '../harness/verifies.js';
import { poll, rejection } from '../harness/wait.js';
import type { Wire } from '../harness/wire.js';

// Spec: Multi-replica deployments. Each case runs two replicas of one agent
// on one PostgreSQL database, each with its own connections, SDK task store,
// reminder service, LISTEN connection and servers: replica A is the case's
// own stack (its arm's clients in `wire`), replica B another stack on the
// same arm. Tasks are created on A, so A runs their executions and holds
// their streams. On the memory and SQLite projects these cases are reported
// skipped (requirements.ts: `stores`).
//
// R71–R74: both replicas run lease keepers wired as the worker wires them
// (harness/replica-stack.ts). Faults are real where they can be: A's lease
// pool black-holed at a proxy, A's heartbeat timer stopped (a stalled
// process), A's pool busy; A's task saves fail through the harness's
// SaveFaults. B reaps by hand where the case must know nothing was reaped
// yet. Every wait polls a condition; no verdict depends on elapsed time.

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

/** The key the stores and the lease keeper give a task of the suite's anonymous caller. */
function anonymousKey(taskId: string): ReminderStoreKey {
  return { tenant: '', owner: resolveUserScope(anonymousContext()), taskId };
}

/** The text of a task's status message. */
function statusText(task: Task): string[] | undefined {
  return task.status?.message?.parts.map((p) =>
    p.content?.$case === 'text' ? p.content.value : '',
  );
}

/** A follow-up message for an existing task, as ProtoJSON. */
function followUpJson(taskId: string) {
  return {
    message: {
      messageId: crypto.randomUUID(),
      role: 'ROLE_USER',
      parts: [{ text: 'and one more thing' }],
      taskId,
    },
    configuration: { returnImmediately: true },
  };
}

/** A follow-up message for an existing task, as a stock client sends it. */
function followUp(taskId: string): SendMessageRequest {
  return SendMessageRequest.fromJSON(followUpJson(taskId));
}

/** What a stock client's error shows of an A2A error: its class, reason, metadata and message. */
function a2aErrorOf(error: unknown) {
  expect(error).toBeInstanceOf(A2AError);
  const typed = error as A2AError;
  return {
    unsupported: error instanceof UnsupportedOperationError,
    reason: typed.reason,
    metadata: typed.metadata,
    message: typed.message,
  };
}

/**
 * The arm's stock client's SendMessage and SendMessageStream of a
 * follow-up to the replica `to` serves, each refused as R74 says. The
 * stock JSON-RPC client (`direct` and `jsonrpc` arms) does not keep an
 * ErrorInfo's metadata, so there the metadata is read from the raw answer.
 */
async function expectFollowUpsRefused(to: Wire, taskId: string): Promise<void> {
  const jsonRpcClient = SDK_BINDING_OF[to.arm] === 'JSONRPC';
  const refused = {
    unsupported: true,
    reason: 'UNSUPPORTED_OPERATION',
    metadata: jsonRpcClient ? undefined : { taskId },
    message: expect.stringMatching(/running on another replica/),
  };
  expect(a2aErrorOf(await rejection(to.sdk.sendMessage(followUp(taskId))))).toEqual(refused);
  // The SDK's JSON-RPC handler logs a refused stream ("Pre-stream error"): expected here.
  using logged = captureConsoleErrors();
  const stream = to.sdk.sendMessageStream(followUp(taskId));
  const streamed = await rejection(
    (async () => {
      for await (const _item of stream) {
        // Nothing may arrive: the stream is refused before it opens.
      }
    })(),
  );
  expect(a2aErrorOf(streamed)).toEqual(refused);
  for (const line of logged.lines) expect(line).toMatch(/UnsupportedOperationError/);
  if (jsonRpcClient) {
    const raw = await rawJsonRpc(to.endpoints, {
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: followUpJson(taskId),
    });
    expect(raw.json.error).toMatchObject({
      code: -32004,
      message: expect.stringMatching(/running on another replica/),
      data: [{ reason: 'UNSUPPORTED_OPERATION', domain: 'a2a-protocol.org', metadata: { taskId } }],
    });
  }
}

verifies(
  'R74-one-loop-per-task',
  async ({ arm, wire }) => {
    const a = replicaOf(wire.stack);
    await using b = await replicas.wire(arm, 'B', { leaseMs: LEASE_MS });
    const onB = replicaOf(b.stack);
    const taskId = await wire.tasks.create();
    const history = (await b.tasks.getTask(taskId)).history.length;
    expect(await a.leaseOf(taskId)).toEqual({ holder: a.keeper.holder, expired: false });

    // A runs the task: B refuses its follow-ups before any execution starts there.
    await expectFollowUpsRefused(b, taskId);
    expect(() => b.stack.executor.execution(taskId)).toThrow(/no running execution/);
    expect(b.stack.taskStore.saves(taskId)).toEqual([]);
    expect(await a.leaseOf(taskId)).toEqual({ holder: a.keeper.holder, expired: false });
    const task = await b.tasks.getTask(taskId);
    expect([task.status?.state, task.history.length]).toEqual([
      TaskState.TASK_STATE_WORKING,
      history,
    ]);
    // A's execution runs on, undisturbed.
    await wire.tasks.turn(taskId);
    await wire.tasks.settle(taskId);

    // The task waits in INPUT_REQUIRED (stored), and A's execution returns:
    // no execution runs it, so its follow-up runs on the replica it
    // reaches, and then A refuses one.
    await wire.tasks.hold(taskId, 'INPUT_REQUIRED', false);
    wire.stack.executor.execution(taskId).done.resolve();
    await poll(
      async () => (await a.leaseOf(taskId))?.holder !== a.keeper.holder,
      "A's execution to return and hand its lease over",
    );
    await b.tasks.resume(taskId);
    expect(b.stack.executor.execution(taskId).requestContext.taskId).toBe(taskId);
    await poll(
      async () => (await a.leaseOf(taskId))?.holder === onB.keeper.holder,
      "B's execution to hold the task's lease",
    );
    await expectFollowUpsRefused(wire, taskId);
  },
  { stack: () => replicas.stack('A', { leaseMs: LEASE_MS }) },
);

/** The task's reminders as B lists them, and the last batch of its event log: what R27 leaves. */
async function endedReminders(b: Wire, replica: Replica, taskId: string) {
  const records = (await b.client.listTaskReminders({ taskId })).reminders;
  return {
    records: records.map((r) => [r.reminder?.id, ReminderState[r.state], r.endTime !== undefined]),
    lastBatch: (await replica.loggedBatches(taskId)).at(-1)?.map(eventSummary),
  };
}

/** A reminder surfaced once (`seen`) and one never surfaced (`unseen`) on the task. */
async function seenAndUnseen(wire: Wire, b: Wire, taskId: string): Promise<void> {
  await b.client.injectTaskReminder({
    taskId,
    reminder: { id: 'seen', body: 'surfaced once', ttlTurns: 3 },
  });
  await wire.tasks.turn(taskId);
  await b.client.injectTaskReminder({ taskId, reminder: { id: 'unseen', body: 'never surfaced' } });
}

/** R27's fates of `seen` and `unseen` for a task ended in `state`. */
function fatesFor(state: string) {
  return {
    records: [
      ['seen', 'EXPIRED', true],
      ['unseen', 'DROPPED', true],
    ],
    lastBatch: [
      'expired:seen {"lastTurn":1,"turnsSurfaced":1,"taskEnded":true}',
      `dropped:unseen {"taskState":"${state}"}`,
    ],
  };
}

/** The stored task's state and status message, as B reads it. */
async function storedOn(b: Wire, taskId: string) {
  const task = await b.tasks.getTask(taskId);
  return { state: task.status?.state, text: statusText(task) };
}

/** The task as the replica's own executions would save it, in `state`. */
async function taskIn(replica: Replica, taskId: string, state: TaskState): Promise<Task> {
  const stored = await replica.guardedTaskStore.load(taskId, anonymousContext());
  if (stored === undefined) throw new Error(`task ${taskId} is not stored`);
  return { ...stored, status: { state, message: undefined, timestamp: new Date().toISOString() } };
}

verifies(
  'R71-lease-fencing',
  async ({ arm, wire }) => {
    const a = replicaOf(wire.stack);
    // B reaps only when the case says, so nothing is reaped before A is fenced.
    await using b = await replicas.wire(arm, 'B', { leaseMs: LEASE_MS, reapByHand: true });
    const reaper = replicaOf(b.stack);
    const proxy = await replicas.proxy();
    const taskId = await wire.tasks.create();
    const key = anonymousKey(taskId);
    await seenAndUnseen(wire, b, taskId);
    // While A's heartbeats get through, its saves are checked against its lease and stored.
    await wire.tasks.settle(taskId);
    expect(a.keeper.standing(key)).toBe('running');

    using _logged = captureConsoleErrors();
    try {
      // A's heartbeats stop reaching the database (its lease pool black-holed),
      // while A itself lives on: it stops owning the task, and its execution is told.
      proxy.blackHole({ applicationName: a.leaseApplicationName });
      await poll(
        () => a.lostLeases.some((lost) => lost.taskId === taskId),
        "A's keeper to tell the execution its lease is lost",
      );
      expect(a.keeper.standing(key)).toBe('lost');
      // Its saves of the task are refused, and nothing of them is stored.
      const late = await taskIn(a, taskId, TaskState.TASK_STATE_COMPLETED);
      expect(await rejection(a.guardedTaskStore.save(late, anonymousContext()))).toBeInstanceOf(
        LeaseLostError,
      );
      expect((await storedOn(b, taskId)).state).toBe(TaskState.TASK_STATE_WORKING);

      // B ends the task once the lease expired on the database's clock.
      await poll(async () => {
        await reaper.keeper.reapNow();
        return (await storedOn(b, taskId)).state === TaskState.TASK_STATE_FAILED;
      }, 'B to end the task FAILED');
      expect(await storedOn(b, taskId)).toEqual({
        state: TaskState.TASK_STATE_FAILED,
        text: [ABANDONED_REASON],
      });
      expect(await endedReminders(b, a, taskId)).toEqual(fatesFor('TASK_STATE_FAILED'));

      // A's execution, told to stop, publishes its last status and returns:
      // neither that nor a save of A's overwrites FAILED.
      wire.stack.executor.setState(taskId, TaskState.TASK_STATE_COMPLETED, true);
      await a.keeper.drain();
      expect(await rejection(a.guardedTaskStore.save(late, anonymousContext()))).toBeInstanceOf(
        LeaseLostError,
      );
      expect((await storedOn(b, taskId)).state).toBe(TaskState.TASK_STATE_FAILED);
      expect(wire.stack.taskStore.saves(taskId).map((t) => t.status?.state)).not.toContain(
        TaskState.TASK_STATE_COMPLETED,
      );
    } finally {
      proxy.heal();
    }
  },
  { stack: () => replicas.stack('A', { leaseMs: LEASE_MS, leaseThroughProxy: true }) },
);

verifies(
  'R71-lease-fencing',
  async ({ arm, wire }) => {
    const a = replicaOf(wire.stack);
    await using b = await replicas.wire(arm, 'B', { leaseMs: LEASE_MS, reapByHand: true });
    const reaper = replicaOf(b.stack);
    const taskId = await wire.tasks.create();
    const key = anonymousKey(taskId);
    // A stalls (a long pause of its process): its heartbeat timer stops,
    // its connections stay up, and its lease expires on the database's clock.
    await a.keeper.close();
    await poll(async () => (await a.leaseOf(taskId))?.expired === true, "A's lease to expire");
    expect(a.lostLeases).toEqual([]);

    // A resumes: its execution's next event is refused at its save, not stored.
    using _logged = captureConsoleErrors();
    const artifactId = wire.stack.executor.barrier(taskId);
    await poll(
      () => a.lostLeases.some((lost) => lost.taskId === taskId),
      'A to find that it no longer owns the task',
    );
    expect(a.keeper.standing(key)).toBe('lost');
    // Its lease, still A's row, is moved to a name no heartbeat renews, expired.
    await poll(
      async () => (await a.leaseOf(taskId))?.holder !== a.keeper.holder,
      "A's lease to be moved off the name A's heartbeat renews",
    );
    expect((await a.leaseOf(taskId))?.expired).toBe(true);
    const task = await b.tasks.getTask(taskId);
    expect(task.artifacts.map((x) => x.artifactId)).not.toContain(artifactId);
    // A reaper ends the task.
    await reaper.keeper.reapNow();
    expect(await storedOn(b, taskId)).toEqual({
      state: TaskState.TASK_STATE_FAILED,
      text: [ABANDONED_REASON],
    });
  },
  {
    variant: 'stalled replica',
    stack: () => replicas.stack('A', { leaseMs: LEASE_MS, reapByHand: true }),
  },
);

verifies(
  'R71-lease-fencing',
  async ({ arm, wire }) => {
    const a = replicaOf(wire.stack);
    await using b = await replicas.wire(arm, 'B', { leaseMs: LEASE_MS, reapByHand: true });
    const taskId = await wire.tasks.create();
    const reader = replicaOf(b.stack);
    const lastStatus = await taskIn(a, taskId, TaskState.TASK_STATE_INPUT_REQUIRED);
    // A's execution stores its last status while it still runs, and the
    // save waits for a connection of A's pool (busy with other work)...
    const busy = await a.occupyPool();
    const last = a.guardedTaskStore.save(lastStatus, anonymousContext());
    // ...while the execution returns and hands its lease over (R53): the
    // lease stays A's, under its returned name, so the save must commit.
    wire.stack.executor.execution(taskId).done.resolve();
    await poll(
      async () => (await reader.leaseOf(taskId))?.holder !== a.keeper.holder,
      "A's execution to hand its lease over",
    );
    expect((await reader.leaseOf(taskId))?.expired).toBe(false);
    await busy.release();
    await last;
    expect((await storedOn(b, taskId)).state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  },
  {
    variant: 'a save as the lease is handed over',
    stack: () => replicas.stack('A', { leaseMs: LEASE_MS, reapByHand: true }),
  },
);

verifies(
  'R72-unsaved-last-status',
  async ({ arm, wire }) => {
    const a = replicaOf(wire.stack);
    await using b = await replicas.wire(arm, 'B', { leaseMs: LEASE_MS });
    const taskId = await wire.tasks.create();
    await seenAndUnseen(wire, b, taskId);
    using _logged = captureConsoleErrors();
    // From now on no save of the task on A reaches the store (the guard gave up on each).
    a.saveFaults.store(taskId);
    // The execution publishes its last status and returns; the status is never stored.
    wire.stack.executor.setState(taskId, TaskState.TASK_STATE_INPUT_REQUIRED, true);
    await poll(() => a.saveFaults.failed(taskId) > 0, 'the last status to fail to be stored');
    // While the task is stored WORKING, the handed-over lease is kept alive for the grace.
    await poll(async () => {
      const lease = await a.leaseOf(taskId);
      return lease !== undefined && lease.holder !== a.keeper.holder;
    }, "A's execution to hand its lease over");
    expect(await a.leaseOf(taskId)).toMatchObject({ expired: false });
    expect((await storedOn(b, taskId)).state).toBe(TaskState.TASK_STATE_WORKING);
    // After the grace the lease expires, and a reaper ends the task FAILED with the reason.
    await poll(
      async () => (await storedOn(b, taskId)).state === TaskState.TASK_STATE_FAILED,
      'a reaper to end the task FAILED',
    );
    expect(await storedOn(b, taskId)).toEqual({
      state: TaskState.TASK_STATE_FAILED,
      text: [UNSAVED_REASON],
    });
    expect(await endedReminders(b, a, taskId)).toEqual(fatesFor('TASK_STATE_FAILED'));
    await poll(async () => (await a.leaseOf(taskId)) === undefined, 'the claim to be released');
  },
  { stack: () => replicas.stack('A', { leaseMs: LEASE_MS }) },
);

verifies(
  'R72-unsaved-last-status',
  async ({ arm, wire }) => {
    const a = replicaOf(wire.stack);
    await using b = await replicas.wire(arm, 'B', { leaseMs: LEASE_MS });
    const taskId = await wire.tasks.create();
    // The database fails the next two saves of the task, as a connection blip would.
    a.saveFaults.database(taskId, 2);
    await wire.tasks.hold(taskId, 'INPUT_REQUIRED', false);
    // Each was tried again, and the status is stored.
    expect(a.saveFaults.failed(taskId)).toBe(2);
    expect((await storedOn(b, taskId)).state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    // Once the execution returned, its handed-over lease is dropped: the last status is stored.
    wire.stack.executor.execution(taskId).done.resolve();
    await poll(async () => (await a.leaseOf(taskId)) === undefined, "A's lease to be dropped");
    expect((await storedOn(b, taskId)).state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  },
  { variant: 'save retried', stack: () => replicas.stack('A', { leaseMs: LEASE_MS }) },
);

verifies(
  'R73-clean-stop',
  async ({ arm, wire }) => {
    const a = replicaOf(wire.stack);
    await using b = await replicas.wire(arm, 'B', { leaseMs: LEASE_MS });
    const onB = replicaOf(b.stack);
    const taskId = await wire.tasks.create();
    await seenAndUnseen(wire, b, taskId);
    expect(await a.leaseOf(taskId)).toEqual({ holder: a.keeper.holder, expired: false });
    // A stops as the worker does on SIGTERM: its running executions are
    // cancelled, it waits until each returned and had its last status and
    // its reminders' fates stored and its lease dropped, and then closes.
    await a.stopCleanly(() => wire.stack.executor.cancelAll());
    expect((await storedOn(b, taskId)).state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(await endedReminders(b, onB, taskId)).toEqual(fatesFor('TASK_STATE_CANCELED'));
    expect(await onB.leaseOf(taskId)).toBeUndefined();
  },
  { stack: () => replicas.stack('A', { leaseMs: LEASE_MS }) },
);
