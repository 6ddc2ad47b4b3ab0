import { expect } from 'vitest';
import { kinds } from '../harness/observe.js';
import { verifies } from '../harness/verifies.js';

verifies(
  'R51-held-events-bounded',
  async ({ wire }) => {
    const taskId = await wire.tasks.create();
    await wire.tasks.hold(taskId, 'INPUT_REQUIRED');
    const watch = await wire.tasks.subscribe(taskId);
    // A monitor keeps firing while the task waits: each inject displaces the previous one.
    for (let i = 0; i < 10; i += 1) {
      await wire.client.injectTaskReminder({
        taskId,
        reminder: { id: `r${i}`, body: 'the monitor fired again', dedupeKey: 'monitor' },
      });
    }
    await wire.tasks.resume(taskId);
    await watch.untilEvents(4);
    // Held at most maxLive + maxRetainedFinal = 4: the newest fates, delivered once resumed.
    expect(watch.batches().map(kinds)).toEqual([
      ['displaced:r5', 'displaced:r6', 'displaced:r7', 'displaced:r8'],
    ]);
    const listed = await wire.client.listTaskReminders({ taskId });
    expect(listed.reminders.map((r) => r.reminder?.id)).toEqual(['r7', 'r8', 'r9']);
  },
  { stack: { limits: { maxLiveRemindersPerTask: 2, maxRetainedFinalRemindersPerTask: 2 } } },
);
