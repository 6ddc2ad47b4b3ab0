import type { StreamResponse } from '@a2a-js/sdk';
import { TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import { describe, expect, it } from 'vitest';
import { followTask } from './demo-loop.js';
import { Timeline } from './timeline.js';

/** A reminder update carrying `events` (TaskReminderEvent ProtoJSON), as a push or a stream brings it. */
function reminderUpdate(events: readonly object[]): StreamResponse {
  return {
    payload: {
      $case: 'statusUpdate',
      value: {
        taskId: 't1',
        contextId: 'c1',
        status: { state: 3, message: undefined, timestamp: '2026-01-01T00:00:00.000Z' },
        metadata: { [TASK_REMINDERS_EXTENSION_URI]: { taskId: 't1', events } },
      },
    },
  } as unknown as StreamResponse;
}

const emitted = (id: string, time: string) => ({
  reminderId: id,
  eventTime: time,
  emitted: { turn: 1, turnsRemaining: 0 },
});

async function* items(list: readonly StreamResponse[]) {
  yield* list;
}

describe('followTask with once', () => {
  it('prints an identical copy of an event once, and distinct events each', async () => {
    const a = emitted('a', '2026-01-01T00:00:01Z');
    const b = emitted('b', '2026-01-01T00:00:02Z');
    // The same reminder id again later (a new reminder after a purge, R48): a distinct event.
    const aAgain = emitted('a', '2026-01-01T00:00:09Z');
    const run = async (once: boolean) => {
      const lines: string[] = [];
      const followed = await followTask({
        items: items([reminderUpdate([a]), reminderUpdate([a, b]), reminderUpdate([aAgain])]),
        timeline: new Timeline('t', (l) => lines.push(l)),
        opened: () => {},
        once,
      });
      return followed.events.map((e) => `${e.reminderId}@${e.eventTime?.seconds}`);
    };
    const copies = await run(false);
    const once = await run(true);
    expect(copies).toHaveLength(4);
    expect(once).toHaveLength(3);
    expect(once).toEqual([copies[0], copies[2], copies[3]]);
  });
});
