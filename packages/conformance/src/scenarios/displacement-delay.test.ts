import { DEFAULT_DISPLACED_EVENT_DELAY_MS, reminderEventsOf } from '@a2a-reminders/core';
import { ReminderState } from '@a2a-reminders/proto';
import { expect } from 'vitest';
import { kinds } from '../harness/observe.js';
import { verifies } from '../harness/verifies.js';
import type { Wire } from '../harness/wire.js';

// R57 with a delay longer than any test: only what the rule names may flush the batch.
const NEVER = 600_000;

/**
 * A task with an open stream, on which b displaces a and c displaces b: the
 * responses and List name both displacements at once (R16, R34).
 */
async function displacedTwice(wire: Wire) {
  const taskId = await wire.tasks.create();
  const watch = await wire.tasks.subscribe(taskId);
  const inject = (id: string) =>
    wire.client.injectTaskReminder({ taskId, reminder: { id, body: id, dedupeKey: 'k' } });
  await inject('a');
  const b = await inject('b');
  const c = await inject('c');
  expect([b.displacedReminderIds, c.displacedReminderIds]).toEqual([['a'], ['b']]);
  const listed = await wire.client.listTaskReminders({ taskId });
  expect(listed.reminders.map((r) => r.state)).toEqual([
    ReminderState.DISPLACED,
    ReminderState.DISPLACED,
    ReminderState.PENDING,
  ]);
  return { taskId, watch };
}

verifies(
  'R57-displacement-delay',
  async ({ wire }) => {
    const { taskId, watch } = await displacedTwice(wire);
    // The boundary's batch sends the waiting displacements first, as one batch of their own.
    await wire.tasks.turn(taskId);
    await watch.untilEvents(3);
    expect(watch.batches().map(kinds)).toEqual([['displaced:a', 'displaced:b'], ['emitted:c']]);
  },
  { stack: { displacedEventDelayMs: NEVER } },
);

verifies(
  'R57-displacement-delay',
  async ({ wire }) => {
    const { watch } = await displacedTwice(wire);
    // Nothing else happens on the task: the delay alone sends the batch.
    await watch.untilEvents(2);
    expect(watch.batches().flatMap(kinds)).toEqual(['displaced:a', 'displaced:b']);
  },
  { variant: 'the delay passes', stack: { displacedEventDelayMs: 20 } },
);

verifies(
  'R57-displacement-delay',
  async ({ wire }) => {
    const { taskId, watch } = await displacedTwice(wire);
    // The agent's status change closes the stream; the displacements reach it first.
    await wire.tasks.hold(taskId, 'INPUT_REQUIRED');
    await watch.untilEnded();
    const updates = watch.items.slice(1).map((item) => reminderEventsOf(item).length);
    expect(updates).toEqual([2, 0]);
    expect(watch.batches().map(kinds)).toEqual([['displaced:a', 'displaced:b']]);
  },
  { variant: 'before a status change', stack: { displacedEventDelayMs: NEVER } },
);

verifies(
  'R57-displacement-delay',
  async ({ wire }) => {
    const { taskId, watch } = await displacedTwice(wire);
    // The task ends: the displacements go out before its terminal update and its fates.
    await wire.tasks.end(taskId, 'COMPLETED');
    await watch.untilEnded();
    expect(watch.batches().map(kinds)).toEqual([['displaced:a', 'displaced:b'], ['dropped:c']]);
  },
  { variant: 'before the task ends', stack: { displacedEventDelayMs: NEVER } },
);

verifies('R67-default-displacement-delay', async ({ wire }) => {
  // The stack leaves the delay to the service: nothing else happens on the
  // task, so its default alone sends the batch, and never before it passes.
  const taskId = await wire.tasks.create();
  const watch = await wire.tasks.subscribe(taskId);
  const inject = (id: string) =>
    wire.client.injectTaskReminder({ taskId, reminder: { id, body: id, dedupeKey: 'k' } });
  await inject('a');
  // The delay starts while b's inject displaces a, after this mark.
  const sent = performance.now();
  expect((await inject('b')).displacedReminderIds).toEqual(['a']);
  await watch.untilEvents(1);
  // Timers never fire early; 1 ms for the two clocks' rounding.
  expect(performance.now() - sent).toBeGreaterThanOrEqual(DEFAULT_DISPLACED_EVENT_DELAY_MS - 1);
  expect(watch.batches().map(kinds)).toEqual([['displaced:a']]);
});
