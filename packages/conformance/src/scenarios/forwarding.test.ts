import { createReminderClient, findAgentInterface } from '@a2a-reminders/client';
import type { ReminderContent } from '@a2a-reminders/core';
import type { TaskReminderRecord } from '@a2a-reminders/proto';
import { ReminderState } from '@a2a-reminders/proto';
import { expect } from 'vitest';
import type { Delegation } from '../harness/delegation.js';
import { delegation, forwardsOf, stateName } from '../harness/delegation.js';
import { startStack } from '../harness/stack.js';
import { verifies } from '../harness/verifies.js';
import type { Wire } from '../harness/wire.js';

// Spec §15, R58 and R62–R64: a parent agent (a second stack, in process)
// forwards its task's reminders into sub-tasks on the case's stack through
// the arm's own client, so every copy, cancel and list crosses the arm's
// binding. Waits are on the parent's stream (its forward events), never on
// the forwarder's timers.

/** A record of the sub-task as the arm's client lists it. */
async function subRecord(wire: Wire, subTaskId: string, id: string): Promise<TaskReminderRecord> {
  const { reminders } = await wire.client.listTaskReminders({ taskId: subTaskId });
  const found = reminders.find((r) => r.reminder?.id === id);
  if (found === undefined) throw new Error(`the sub-task has no record ${id}`);
  return found;
}

/** The record's forwards as `subTaskId:copyId:STATE` or `…:REFUSAL`, in order (R63). */
function forwardEntries(record: TaskReminderRecord): string[] {
  return record.forwards.map(
    (f) => `${f.taskId}:${f.reminderId}:${f.refusal || stateName(f.state)}`,
  );
}

/** Every batch carrying a forward event carries nothing else (R63: a batch of its own). */
function expectForwardBatchesAlone(d: Delegation): void {
  for (const batch of d.parentWatch.batches()) {
    if (batch.some((e) => e.event.case === 'forward')) expect(batch).toHaveLength(1);
  }
}

verifies(
  'R58-provenance',
  async ({ wire }) => {
    await using d = await delegation(wire);
    // The original was itself forwarded once already, from a grandparent task.
    await d.inject({
      id: 'ci',
      body: 'CI is red on main',
      dedupeKey: 'ci',
      ttlTurns: 4,
      roleHint: 'developer',
      source: 'coordinator',
      metadata: { run: 7, jobs: ['lint', 'test'] },
      provenance: { hops: [{ taskId: 'grandparent', reminderId: 'ci-0', source: 'ops' }] },
    });
    // Two turns leave it two of its four (R20): the copy gets what is left.
    await d.parent.tasks.turn(d.parentTaskId);
    await d.parent.tasks.turn(d.parentTaskId);
    const forwarding = d.start({ source: 'worker' });
    await d.untilForwards(1);
    await forwarding.close();

    const copy = await subRecord(wire, d.subTaskId, 'ci');
    expect(copy.state).toBe(ReminderState.PENDING);
    expect(copy.reminder).toMatchObject({
      id: 'ci',
      body: 'CI is red on main',
      dedupeKey: 'ci',
      ttlTurns: 2,
      roleHint: 'developer',
      source: 'worker',
      metadata: { run: 7, jobs: ['lint', 'test'] },
    });
    // The original's hops, then one naming the parent task, the original's id and its source there.
    expect(copy.reminder?.provenance?.hops.map((h) => [h.taskId, h.reminderId, h.source])).toEqual([
      ['grandparent', 'ci-0', 'ops'],
      [d.parentTaskId, 'ci', 'coordinator'],
    ]);
  },
  { variant: 'forwarded copy' },
);

verifies('R62-what-is-forwarded', async ({ wire }) => {
  await using d = await delegation(wire);
  await d.inject({ id: 'live', body: 'live at the start', ttlTurns: 4 });
  await d.inject({ id: 'short', body: 'expires first' });
  await d.inject({ id: 'gone', body: 'cancelled first' });
  await d.parent.client.cancelTaskReminder({ taskId: d.parentTaskId, reminderId: 'gone' });
  await d.parent.tasks.turn(d.parentTaskId);
  await d.parent.tasks.turn(d.parentTaskId);
  expect([(await d.record('short')).state, (await d.record('live')).state]).toEqual([
    ReminderState.EXPIRED,
    ReminderState.ACTIVE,
  ]);
  const asked: string[] = [];
  const filter = (r: ReminderContent) => {
    asked.push(r.id);
    return r.source !== 'noisy';
  };
  const forwarding = d.start({ filter });
  // Those live at the start go without a call of the worker's.
  await d.untilForwards(1);
  // One accepted while it runs goes at once, after its inject (no sync called).
  await d.inject({ id: 'late', body: 'accepted while forwarding' });
  await d.untilForwards(2);
  // One the filter keeps back does not go; the next one still does.
  await d.inject({ id: 'kept-back', body: 'noise', source: 'noisy' });
  await d.inject({ id: 'later', body: 'after the noise' });
  await d.untilForwards(3);
  // However often it syncs, each goes once and the filter is asked once per reminder.
  await forwarding.sync();
  await forwarding.sync();
  await forwarding.close();
  await d.settled();

  expect(forwardsOf(d.parentWatch.events())).toEqual([
    'live:PENDING',
    'late:PENDING',
    'later:PENDING',
  ]);
  expect(d.sent).toEqual(['live', 'late', 'later']);
  const listed = (await wire.client.listTaskReminders({ taskId: d.subTaskId })).reminders;
  expect(listed.map((r) => [r.reminder?.id, r.reminder?.provenance?.hops.length])).toEqual([
    ['live', 1],
    ['late', 1],
    ['later', 1],
  ]);
  for (const id of ['live', 'late', 'kept-back', 'later']) {
    expect({ id, asked: asked.filter((a) => a === id).length }).toEqual({ id, asked: 1 });
  }
  // Final reminders were not forwarded, and have no forwards on their record.
  for (const id of ['short', 'gone', 'kept-back']) {
    expect({ id, forwards: (await d.record(id)).forwards }).toEqual({ id, forwards: [] });
  }
});

verifies('R63-fates-follow', async ({ wire }) => {
  await using d = await delegation(wire);
  const second = await wire.tasks.create();
  const forwarding = d.start({ filter: (r) => r.source !== 'noisy' });

  // Cancel: the copy in each sub-task is cancelled; the record lists one entry per
  // sub-task, in the order of forwarding.
  await d.inject({ id: 'ci', body: 'CI is red' });
  await d.untilForwards(1);
  const toSecond = d.start({ taskId: second });
  await d.untilForwards(2);
  await d.parent.client.cancelTaskReminder({ taskId: d.parentTaskId, reminderId: 'ci' });
  await d.untilForwards(4);
  expect((await subRecord(wire, d.subTaskId, 'ci')).state).toBe(ReminderState.CANCELLED);
  expect((await subRecord(wire, second, 'ci')).state).toBe(ReminderState.CANCELLED);
  const cancelled = await d.record('ci');
  expect(cancelled.state).toBe(ReminderState.CANCELLED);
  expect(forwardEntries(cancelled)).toEqual([
    `${d.subTaskId}:ci:CANCELLED`,
    `${second}:ci:CANCELLED`,
  ]);
  for (const f of cancelled.forwards) expect(f.updateTime).toBeDefined();
  await toSecond.close();

  // Displacement by a forwarded reminder: its copy displaces the original's copy there (R15).
  await d.inject({ id: 'cost-1', body: 'over budget', dedupeKey: 'cost' });
  await d.untilForwards(5);
  await d.inject({ id: 'cost-2', body: 'further over budget', dedupeKey: 'cost' });
  await d.untilForwards(7);
  const displacedCopy = await subRecord(wire, d.subTaskId, 'cost-1');
  expect([displacedCopy.state, displacedCopy.displacedBy]).toEqual([
    ReminderState.DISPLACED,
    'cost-2',
  ]);
  expect((await subRecord(wire, d.subTaskId, 'cost-2')).state).toBe(ReminderState.PENDING);
  expect(forwardEntries(await d.record('cost-1'))).toEqual([`${d.subTaskId}:cost-1:DISPLACED`]);

  // Displacement by a reminder the filter keeps back: the original's copy is cancelled.
  await d.inject({ id: 'lint-1', body: 'lint fails', dedupeKey: 'lint' });
  await d.untilForwards(8);
  await d.inject({ id: 'lint-2', body: 'lint fails', dedupeKey: 'lint', source: 'noisy' });
  await d.untilForwards(9);
  expect((await subRecord(wire, d.subTaskId, 'lint-1')).state).toBe(ReminderState.CANCELLED);
  expect(forwardEntries(await d.record('lint-2'))).toEqual([]);

  // Expiry in the parent leaves the copy to its own ttl in the sub-task.
  await d.inject({ id: 'flaky', body: 'a flaky test' });
  await d.untilForwards(10);
  await d.parent.tasks.turn(d.parentTaskId);
  await d.parent.tasks.turn(d.parentTaskId);
  expect((await d.record('flaky')).state).toBe(ReminderState.EXPIRED);
  await forwarding.close();
  expect((await subRecord(wire, d.subTaskId, 'flaky')).state).toBe(ReminderState.PENDING);
  expect(forwardEntries(await d.record('flaky'))).toEqual([`${d.subTaskId}:flaky:PENDING`]);
  await d.settled();

  // Each change of an entry was one forward event, in a batch of its own.
  expect(forwardsOf(d.parentWatch.events())).toEqual([
    'ci:PENDING',
    'ci:PENDING',
    'ci:CANCELLED',
    'ci:CANCELLED',
    'cost-1:PENDING',
    'cost-2:PENDING',
    'cost-1:DISPLACED',
    'lint-1:PENDING',
    'lint-1:CANCELLED',
    'flaky:PENDING',
  ]);
  const subTaskIds = d.parentWatch
    .events()
    .flatMap((e) => (e.event.case === 'forward' ? [e.event.value.taskId] : []));
  // The two cancels run side by side: their order between sub-tasks is not fixed.
  expect([...subTaskIds.slice(0, 2), ...subTaskIds.slice(2, 4).sort()]).toEqual([
    d.subTaskId,
    second,
    ...[d.subTaskId, second].sort(),
  ]);
  expectForwardBatchesAlone(d);
});

verifies(
  'R63-fates-follow',
  async ({ arm, wire }) => {
    await using d = await delegation(wire);
    const hop = (taskId: string) => ({ taskId, reminderId: 'up', source: 'up' });
    // The sub-task's agent takes 2 hops: 'deep' would arrive with 3, 'loop' names the
    // sub-task itself (R61), 'fine' arrives with 2.
    await d.inject({ id: 'deep', body: 'b', provenance: { hops: [hop('a'), hop('b')] } });
    await d.inject({ id: 'loop', body: 'b', provenance: { hops: [hop(d.subTaskId)] } });
    await d.inject({ id: 'fine', body: 'b', provenance: { hops: [hop('a')] } });
    const forwarding = d.start();
    await d.untilForwards(3);
    // A newer reminder the sub-task refuses displaces the original: its copy is cancelled.
    await d.inject({ id: 'ci-1', body: 'CI is red', dedupeKey: 'ci' });
    await d.untilForwards(4);
    await d.inject({
      id: 'ci-2',
      body: 'CI is red',
      dedupeKey: 'ci',
      provenance: { hops: [hop('a'), hop('b')] },
    });
    await d.untilForwards(6);
    // A refused copy is not sent again (R62), however often the forwarding syncs.
    await forwarding.sync();
    await forwarding.sync();
    await forwarding.close();
    await d.settled();
    expect(d.sent).toEqual(['deep', 'loop', 'fine', 'ci-1', 'ci-2']);
    expect(forwardsOf(d.parentWatch.events())).toEqual([
      'deep:FORWARD_HOP_LIMIT_EXCEEDED',
      'loop:FORWARD_LOOP',
      'fine:PENDING',
      'ci-1:PENDING',
      'ci-2:FORWARD_HOP_LIMIT_EXCEEDED',
      'ci-1:CANCELLED',
    ]);
    const deep = (await d.record('deep')).forwards;
    expect(deep).toHaveLength(1);
    expect(deep[0]).toMatchObject({
      taskId: d.subTaskId,
      reminderId: 'deep',
      state: ReminderState.UNSPECIFIED,
      refusal: 'FORWARD_HOP_LIMIT_EXCEEDED',
    });
    expect(deep[0]?.updateTime).toBeDefined();
    expect(forwardEntries(await d.record('loop'))).toEqual([`${d.subTaskId}:loop:FORWARD_LOOP`]);
    // The original stays as it was: a refusal is a report on the copy.
    expect((await d.record('deep')).state).toBe(ReminderState.PENDING);
    const listed = (await wire.client.listTaskReminders({ taskId: d.subTaskId })).reminders;
    expect(listed.map((r) => [r.reminder?.id, r.state])).toEqual([
      ['fine', ReminderState.PENDING],
      ['ci-1', ReminderState.CANCELLED],
    ]);

    if (arm !== 'direct') {
      // An agent that cannot be reached on the arm's binding: recorded as INTERNAL, the
      // code the client reports for a transport failure, after the earlier sub-task's entry.
      const gone = await startStack();
      const url = findAgentInterface(gone.card, arm)?.url;
      await gone.close();
      if (url === undefined) throw new Error(`the card lists no ${arm} interface`);
      const unreachable = createReminderClient(arm, { url });
      try {
        await d.start({ client: unreachable, taskId: 'gone-task' }).close();
      } finally {
        unreachable.close();
      }
      expect(forwardEntries(await d.record('fine'))).toEqual([
        `${d.subTaskId}:fine:PENDING`,
        'gone-task:fine:INTERNAL',
      ]);
      await d.settled();
    }
    expectForwardBatchesAlone(d);
  },
  { variant: 'refusals', stack: { limits: { maxForwardHops: 2 } } },
);

verifies(
  'R63-fates-follow',
  async ({ wire }) => {
    await using d = await delegation(wire);
    await d.inject({ id: 'ci', body: 'CI is red' });
    const forwarding = d.start();
    await d.untilForwards(1);
    // The parent task ends: the original is DROPPED there, its copy left to the sub-task.
    await d.parent.tasks.end(d.parentTaskId, 'COMPLETED');
    await d.parentWatch.untilEnded();
    expect((await d.record('ci')).state).toBe(ReminderState.DROPPED);
    // Entries still change, on the record: the copy's cancel there is learned at close (R64).
    await wire.client.cancelTaskReminder({ taskId: d.subTaskId, reminderId: 'ci' });
    await forwarding.close();
    const record = await d.record('ci');
    expect([record.state, forwardEntries(record)]).toEqual([
      ReminderState.DROPPED,
      [`${d.subTaskId}:ci:CANCELLED`],
    ]);
  },
  { variant: 'after the task ended' },
);

verifies('R64-forwarder-learns', async ({ wire }) => {
  await using d = await delegation(wire);
  await d.inject({ id: 'ci', body: 'CI is red', ttlTurns: 2 });
  await d.inject({ id: 'cost', body: 'over budget', ttlTurns: 5 });
  const forwarding = d.start();
  await d.untilForwards(2);
  // The worker reads the sub-task's stream anyway (a stock client on the arm's binding)
  // and hands its items over: the copy's first surfacing is learned from it.
  const subWatch = await wire.tasks.subscribe(d.subTaskId);
  await wire.tasks.turn(d.subTaskId);
  await subWatch.untilEvents(2);
  for (const item of subWatch.items) await forwarding.observe(item);
  // Items of another task are ignored: the parent's own stream changes nothing.
  for (const item of d.parentWatch.items) await forwarding.observe(item);
  expect(forwardEntries(await d.record('ci'))).toEqual([`${d.subTaskId}:ci:ACTIVE`]);
  expect(forwardEntries(await d.record('cost'))).toEqual([`${d.subTaskId}:cost:ACTIVE`]);
  // Its expiry is not handed over: close reads it off the sub-task with ListTaskReminders.
  await wire.tasks.turn(d.subTaskId);
  await wire.tasks.turn(d.subTaskId);
  expect((await subRecord(wire, d.subTaskId, 'ci')).state).toBe(ReminderState.EXPIRED);
  await forwarding.close();
  expect(forwardEntries(await d.record('ci'))).toEqual([`${d.subTaskId}:ci:EXPIRED`]);
  expect(forwardEntries(await d.record('cost'))).toEqual([`${d.subTaskId}:cost:ACTIVE`]);
  // A fate after close is listed in the sub-task only; the entry keeps the last state learned.
  await wire.client.cancelTaskReminder({ taskId: d.subTaskId, reminderId: 'cost' });
  expect(forwardEntries(await d.record('cost'))).toEqual([`${d.subTaskId}:cost:ACTIVE`]);
  await d.settled();
  expect(forwardsOf(d.parentWatch.events())).toEqual([
    'ci:PENDING',
    'cost:PENDING',
    'ci:ACTIVE',
    'cost:ACTIVE',
    'ci:EXPIRED',
  ]);
  // The original's own life is its own: still pending in the parent, whose turns are its own.
  expect((await d.record('ci')).state).toBe(ReminderState.PENDING);
});
