import type { ReminderClient, ReminderError } from '@a2a-reminders/core';
import { reminderPages, TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import { ReminderState } from '@a2a-reminders/proto';
import { expect } from 'vitest';
import { verifies } from '../harness/verifies.js';

/** Every retained record of the task as [id, state name], following every page (R49). */
async function retained(client: ReminderClient, taskId: string) {
  const out: [string | undefined, string][] = [];
  for await (const page of reminderPages(client, { taskId, pageSize: 100 })) {
    for (const r of page.reminders) out.push([r.reminder?.id, ReminderState[r.state]]);
  }
  return out;
}

verifies(
  'R48-retained-finals-cap',
  async ({ wire }) => {
    const card = await wire.sdk.getAgentCard();
    const params = card.capabilities?.extensions.find((e) => e.uri === TASK_REMINDERS_EXTENSION_URI)
      ?.params as Record<string, unknown> | undefined;
    expect(params?.maxRetainedFinalRemindersPerTask).toBe(2);

    const taskId = await wire.tasks.create();
    const client = wire.client;
    // A live reminder older than every final one is never purged.
    await client.injectTaskReminder({ taskId, reminder: { id: 'long', body: 'x', ttlTurns: 5 } });
    await wire.tasks.turn(taskId);
    for (let i = 0; i < 5; i += 1) {
      await client.injectTaskReminder({
        taskId,
        reminder: { id: `m${i}`, body: `fired ${i}`, dedupeKey: 'monitor' },
      });
    }
    expect(await retained(client, taskId)).toEqual([
      ['long', 'ACTIVE'],
      ['m2', 'DISPLACED'],
      ['m3', 'DISPLACED'],
      ['m4', 'PENDING'],
    ]);
    // End order, not acceptance order: cancelling `long` makes it the newest final record.
    await client.cancelTaskReminder({ taskId, reminderId: 'long' });
    expect(await retained(client, taskId)).toEqual([
      ['long', 'CANCELLED'],
      ['m3', 'DISPLACED'],
      ['m4', 'PENDING'],
    ]);
    // A purged id is unknown: cancel is REMINDER_NOT_FOUND ...
    const notFound = (await client
      .cancelTaskReminder({ taskId, reminderId: 'm0' })
      .catch((e: unknown) => e)) as ReminderError;
    expect(notFound.code).toBe('REMINDER_NOT_FOUND');
    // ... and a re-send, even with other content, is a new reminder (no REMINDER_ID_CONFLICT).
    const again = await client.injectTaskReminder({
      taskId,
      reminder: { id: 'm0', body: 'fired again', dedupeKey: 'monitor' },
    });
    expect([again.record?.state, again.displacedReminderIds]).toEqual([
      ReminderState.PENDING,
      ['m4'],
    ]);
    // A retained id still replays (R13): m4's identical re-send answers as it first did.
    const replay = await client.injectTaskReminder({
      taskId,
      reminder: { id: 'm4', body: 'fired 4', dedupeKey: 'monitor' },
    });
    expect(replay.displacedReminderIds).toEqual(['m3']);
    // The task's end purges in the same step.
    await wire.tasks.end(taskId, 'COMPLETED');
    expect(await retained(client, taskId)).toEqual([
      ['m4', 'DISPLACED'],
      ['m0', 'DROPPED'],
    ]);
  },
  { stack: { limits: { maxRetainedFinalRemindersPerTask: 2 } } },
);
