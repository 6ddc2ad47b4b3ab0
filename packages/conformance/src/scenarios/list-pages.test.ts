import type { ReminderError } from '@a2a-reminders/core';
import { DEFAULT_LIST_PAGE_SIZE, reminderPages } from '@a2a-reminders/core';
import type { ListTaskRemindersResponse } from '@a2a-reminders/proto';
import { expect } from 'vitest';
import { verifies } from '../harness/verifies.js';

const ids = (page: ListTaskRemindersResponse) => page.reminders.map((r) => r.reminder?.id);

verifies(
  'R49-list-pages',
  async ({ wire }) => {
    const client = wire.client;
    const taskId = await wire.tasks.create();
    const all = Array.from({ length: 60 }, (_, i) => `r${String(i).padStart(2, '0')}`);
    for (const id of all) await client.injectTaskReminder({ taskId, reminder: { id, body: id } });

    // Default page size 50, then the rest; the last page has an empty token.
    const first = await client.listTaskReminders({ taskId });
    expect(ids(first)).toEqual(all.slice(0, DEFAULT_LIST_PAGE_SIZE));
    const second = await client.listTaskReminders({ taskId, pageToken: first.nextPageToken });
    expect([ids(second), second.nextPageToken]).toEqual([all.slice(50), '']);
    expect((await client.listTaskReminders({ taskId, pageSize: 100 })).reminders.length).toBe(60);

    // The token survives purges on both sides of it (R48 cap 2): a walk still sees each record once.
    const walk: (string | undefined)[] = [];
    let page = await client.listTaskReminders({ taskId, pageSize: 7 });
    walk.push(...ids(page));
    // Cap 2: r10 and r11 (ahead of the token) and r00 (behind it) are purged by these cancels.
    for (const id of ['r10', 'r11', 'r00', 'r01', 'r02']) {
      await client.cancelTaskReminder({ taskId, reminderId: id });
    }
    await client.injectTaskReminder({ taskId, reminder: { id: 'late', body: 'late' } });
    while (page.nextPageToken !== '') {
      page = await client.listTaskReminders({ taskId, pageSize: 7, pageToken: page.nextPageToken });
      walk.push(...ids(page));
    }
    const purgedAhead = ['r10', 'r11'];
    const expected = [
      ...all.slice(0, 7),
      ...all.slice(7).filter((id) => !purgedAhead.includes(id)),
      'late',
    ];
    expect(walk).toEqual(expected);

    // liveOnly: the cancelled ones are gone from that view, paged the same way.
    const live: (string | undefined)[] = [];
    for await (const p of reminderPages(client, { taskId, liveOnly: true, pageSize: 20 })) {
      live.push(...ids(p));
    }
    const cancelled = ['r00', 'r01', 'r02', 'r10', 'r11'];
    expect(live).toEqual([...all.filter((id) => !cancelled.includes(id)), 'late']);

    // Bad paging fields are INVALID_ARGUMENT on the field, all at once, before the lookup.
    for (const [request, fields] of [
      [{ taskId, pageSize: 0 }, ['pageSize']],
      [{ taskId, pageSize: 101 }, ['pageSize']],
      [{ taskId, pageToken: 'not-a-token' }, ['pageToken']],
      [{ taskId: 'no-such-task', pageSize: -1, pageToken: '%%' }, ['pageSize', 'pageToken']],
    ] as const) {
      const error = (await client
        .listTaskReminders(request)
        .catch((e: unknown) => e)) as ReminderError;
      expect([error.code, error.fieldViolations.map((v) => v.field)]).toEqual([
        'INVALID_ARGUMENT',
        fields,
      ]);
    }
  },
  { stack: { limits: { maxRetainedFinalRemindersPerTask: 2 } } },
);
