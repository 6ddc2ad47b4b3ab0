import type { ForwardingClient } from '@a2a-reminders/core';
import type { TaskReminderRecord } from '@a2a-reminders/proto';
import { ReminderState } from '@a2a-reminders/proto';
import { expect } from 'vitest';
import { delegation, forwardsOf } from '../harness/delegation.js';
import { verifies } from '../harness/verifies.js';
import type { Wire } from '../harness/wire.js';

// Spec §15, R68: a copy whose inject got no answer may still have arrived on
// the case's stack. Its answers are lost here on purpose (the arm's client,
// wrapped); every cancel and list still crosses the arm's binding. Waits are
// on the parent's stream and on the forwarder's own sync, never on timers.

/**
 * The arm's client with every inject answer lost: the copy reaches the
 * sub-task (at once, or with `late` only on `deliver()`, as a request still
 * in transit), and the forwarder hears a transport failure (R62: INTERNAL).
 */
function answersLost(wire: Wire, options: { late?: boolean } = {}) {
  const held: Array<() => Promise<unknown>> = [];
  const lost = {
    cancels: 0,
    client: {
      injectTaskReminder: async (request, call) => {
        const arrive = () => wire.client.injectTaskReminder(request, call);
        if (options.late) held.push(arrive);
        else await arrive();
        throw new Error('socket hang up');
      },
      cancelTaskReminder: (request, call) => {
        lost.cancels += 1;
        return wire.client.cancelTaskReminder(request, call);
      },
      listTaskReminders: (request, call) => wire.client.listTaskReminders(request, call),
    } satisfies ForwardingClient,
    /** The held injects reach the sub-task, in the order they were sent. */
    async deliver() {
      for (const arrive of held.splice(0)) await arrive();
    },
  };
  return lost;
}

/** The sub-task's records as the arm's client lists them, as `[id, state]`. */
async function subStates(wire: Wire, subTaskId: string): Promise<[string, ReminderState][]> {
  const { reminders } = await wire.client.listTaskReminders({ taskId: subTaskId });
  return reminders.map((r: TaskReminderRecord) => [r.reminder?.id ?? '', r.state]);
}

/** The original's entry for the sub-task as `STATE` or its refusal code (R63). */
function entry(record: TaskReminderRecord): string[] {
  return record.forwards.map((f) => f.refusal || (ReminderState[f.state] ?? String(f.state)));
}

verifies('R68-unknown-copies-follow', async ({ wire }) => {
  await using d = await delegation(wire);
  const lost = answersLost(wire);
  await d.inject({ id: 'ci', body: 'CI is red' });
  await d.inject({ id: 'lint-1', body: 'lint fails', dedupeKey: 'lint' });
  const forwarding = d.start({ client: lost.client, filter: (r) => r.source !== 'noisy' });
  await d.untilForwards(2);
  // Both copies are live on the arm's agent; the forwarder never heard so.
  expect(await subStates(wire, d.subTaskId)).toEqual([
    ['ci', ReminderState.PENDING],
    ['lint-1', ReminderState.PENDING],
  ]);

  // Cancel: the copy is cancelled anyway, and the answer gives the entry its state.
  await d.parent.client.cancelTaskReminder({ taskId: d.parentTaskId, reminderId: 'ci' });
  await d.untilForwards(3);
  // Displacement by a reminder the filter keeps back: the copy is cancelled anyway.
  await d.inject({ id: 'lint-2', body: 'lint fails', dedupeKey: 'lint', source: 'noisy' });
  await d.untilForwards(4);
  await forwarding.close();
  await d.settled();

  expect(await subStates(wire, d.subTaskId)).toEqual([
    ['ci', ReminderState.CANCELLED],
    ['lint-1', ReminderState.CANCELLED],
  ]);
  expect(entry(await d.record('ci'))).toEqual(['CANCELLED']);
  expect(entry(await d.record('lint-1'))).toEqual(['CANCELLED']);
  expect(forwardsOf(d.parentWatch.events())).toEqual([
    'ci:INTERNAL',
    'lint-1:INTERNAL',
    'ci:CANCELLED',
    'lint-1:CANCELLED',
  ]);
});

verifies(
  'R68-unknown-copies-follow',
  async ({ wire }) => {
    await using d = await delegation(wire);
    const lost = answersLost(wire, { late: true });
    await d.inject({ id: 'ci', body: 'CI is red' });
    const forwarding = d.start({ client: lost.client });
    await d.untilForwards(1);
    await d.parent.client.cancelTaskReminder({ taskId: d.parentTaskId, reminderId: 'ci' });
    // The cancel's wake, then one more sync: the copy's cancel found none, and is not repeated.
    await forwarding.sync();
    await forwarding.sync();
    expect(lost.cancels).toBe(1);
    expect(await subStates(wire, d.subTaskId)).toEqual([]);
    expect(entry(await d.record('ci'))).toEqual(['INTERNAL']);

    // The copy was in transit: it arrives now, live on the arm's agent.
    await lost.deliver();
    expect(await subStates(wire, d.subTaskId)).toEqual([['ci', ReminderState.PENDING]]);
    // Close adopts it from ListTaskReminders (R64), then cancels it: its original is cancelled.
    await forwarding.close();
    await d.settled();
    expect(lost.cancels).toBe(2);
    expect(await subStates(wire, d.subTaskId)).toEqual([['ci', ReminderState.CANCELLED]]);
    expect(entry(await d.record('ci'))).toEqual(['CANCELLED']);
    expect(forwardsOf(d.parentWatch.events())).toEqual([
      'ci:INTERNAL',
      'ci:PENDING',
      'ci:CANCELLED',
    ]);
  },
  { variant: 'at close' },
);
