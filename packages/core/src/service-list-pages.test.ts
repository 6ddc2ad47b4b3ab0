import { TaskState } from '@a2a-js/sdk';
import type { ListTaskRemindersResponse } from '@a2a-reminders/proto';
import { ListTaskRemindersRequestSchema, ReminderState } from '@a2a-reminders/proto';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { create } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { reminderPages } from './client.js';
import type { ReminderError } from './errors.js';
import type { ReminderLimits } from './limits.js';
import { DEFAULT_LIST_PAGE_SIZE, encodePageToken, MAX_LIST_PAGE_SIZE } from './list-page.js';
import type { Harness } from './testing/harness.js';
import { caller, harness, rejection } from './testing/harness.js';

// R49: ListTaskReminders pages like A2A's ListTasks (pageSize 1–100, default
// 50; an opaque pageToken; an empty nextPageToken on the last page) and can
// list live reminders only.

async function setup(limits: Partial<ReminderLimits> = {}) {
  const h = harness({ limits: { maxLiveRemindersPerTask: 500, ...limits } });
  const task = await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
  const sink = h.openBus('t1');
  const turn = () => h.service.beginTurn(h.requestContext(task), sink.bus);
  return { h, turn };
}

async function injectMany(h: Harness, ids: readonly string[]): Promise<void> {
  for (const id of ids) await h.inject('t1', { id, body: id });
}

const range = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
const ids = (page: ListTaskRemindersResponse) => page.reminders.map((r) => r.reminder?.id);

async function invalid(promise: Promise<unknown>) {
  const error = (await rejection(promise)) as ReminderError;
  return [error.code, error.fieldViolations.map((v) => v.field)];
}

describe('ListTaskReminders pages (R49)', () => {
  it('pages of 50 by default and up to 100, in acceptance order, the last with an empty token', async () => {
    const { h } = await setup();
    const all = range('r', 130);
    await injectMany(h, all);
    const first = await h.list('t1');
    expect(ids(first)).toEqual(all.slice(0, DEFAULT_LIST_PAGE_SIZE));
    expect(first.nextPageToken).not.toBe('');
    const big = await h.listPage('t1', { pageToken: first.nextPageToken, pageSize: 100 });
    expect(ids(big)).toEqual(all.slice(50, 130).slice(0, MAX_LIST_PAGE_SIZE));
    expect(big.nextPageToken).toBe('');
  });

  it('a page that ends exactly at the last record is the last page', async () => {
    const { h } = await setup();
    await injectMany(h, ['a', 'b', 'c', 'd']);
    const first = await h.listPage('t1', { pageSize: 2 });
    const second = await h.listPage('t1', { pageSize: 2, pageToken: first.nextPageToken });
    expect([ids(first), ids(second), second.nextPageToken]).toEqual([['a', 'b'], ['c', 'd'], '']);
    expect((await h.listPage('t1', { pageSize: 4 })).nextPageToken).toBe('');
  });

  it('the token stays valid while records before and after it are purged (R48)', async () => {
    const { h } = await setup({ maxRetainedFinalRemindersPerTask: 2 });
    await injectMany(h, range('r', 6));
    const seen: (string | undefined)[] = [];
    let page = await h.listPage('t1', { pageSize: 2 });
    seen.push(...ids(page));
    await h.inject('t1', { id: 'r6', body: 'during the walk' });
    for (const id of ['r0', 'r1', 'r2']) await h.cancel('t1', id); // r0, the token's past, purged
    page = await h.listPage('t1', { pageSize: 2, pageToken: page.nextPageToken });
    seen.push(...ids(page));
    for (const id of ['r4', 'r5']) await h.cancel('t1', id); // r1 and r2 purged
    page = await h.listPage('t1', { pageSize: 2, pageToken: page.nextPageToken });
    seen.push(...ids(page));
    page = await h.listPage('t1', { pageSize: 2, pageToken: page.nextPageToken });
    seen.push(...ids(page));
    expect(page.nextPageToken).toBe('');
    expect(seen).toEqual(range('r', 7));
  });

  it('a walk concurrent with injects sees every record once, in acceptance order', async () => {
    const { h } = await setup();
    const before = range('a', 30);
    await injectMany(h, before);
    const during = range('b', 20);
    const seen: (string | undefined)[] = [];
    let pageToken = '';
    let next = 0;
    const sizes: number[] = [];
    do {
      // Each page request races one inject; the store serializes them either way.
      const inject =
        next < during.length
          ? h.inject('t1', { id: during[next] ?? '', body: 'b' })
          : Promise.resolve();
      next += 1;
      const [page] = await Promise.all([h.listPage('t1', { pageSize: 3, pageToken }), inject]);
      seen.push(...ids(page));
      sizes.push(page.reminders.length);
      pageToken = page.nextPageToken;
    } while (pageToken !== '');
    // Pages of 3: the 30 records there before the walk alone take 10 pages.
    expect(sizes.length).toBeGreaterThanOrEqual(10);
    expect(Math.max(...sizes)).toBe(3);
    expect(new Set(seen).size).toBe(seen.length);
    const all = ids(await h.listPage('t1', { pageSize: 100 }));
    // Every record accepted before the walk is seen; all seen are in acceptance order.
    expect(seen.slice(0, before.length)).toEqual(before);
    expect(seen).toEqual(all.filter((id) => seen.includes(id)));
  });

  it('liveOnly lists the live reminders only, and pages them', async () => {
    const { h, turn } = await setup();
    await h.inject('t1', { id: 'gone', body: 'x' });
    await h.inject('t1', { id: 'stay', body: 'x', ttlTurns: 5 });
    await h.inject('t1', { id: 'k1', body: 'x', dedupeKey: 'k' });
    await turn();
    await turn(); // gone expires
    await h.inject('t1', { id: 'k2', body: 'x', dedupeKey: 'k' }); // k1 displaced
    await h.inject('t1', { id: 'cx', body: 'x' });
    await h.cancel('t1', 'cx');
    await h.inject('t1', { id: 'new', body: 'x' });
    const live = await h.listPage('t1', { liveOnly: true });
    expect(live.reminders.map((r) => [r.reminder?.id, ReminderState[r.state]])).toEqual([
      ['stay', 'ACTIVE'],
      ['k2', 'PENDING'],
      ['new', 'PENDING'],
    ]);
    const pages: (string | undefined)[][] = [];
    const client = {
      listTaskReminders: (request: MessageInitShape<typeof ListTaskRemindersRequestSchema>) =>
        h.service.listTaskReminders(create(ListTaskRemindersRequestSchema, request), h.ctx),
    };
    for await (const page of reminderPages(client, { taskId: 't1', liveOnly: true, pageSize: 2 })) {
      pages.push(ids(page));
    }
    expect(pages).toEqual([['stay', 'k2'], ['new']]);
    expect(ids(await h.list('t1'))).toEqual(['gone', 'stay', 'k1', 'k2', 'cx', 'new']);
  });

  it('pageSize outside 1..100 and unreadable tokens are INVALID_ARGUMENT, with every violation, before the lookup', async () => {
    const { h } = await setup();
    await injectMany(h, ['a']);
    for (const pageSize of [0, -1, 101, 1000]) {
      expect(await invalid(h.listPage('t1', { pageSize }))).toEqual([
        'INVALID_ARGUMENT',
        ['pageSize'],
      ]);
    }
    const forged = [
      'garbage!',
      'not-a-token',
      btoa('r1:0').replace(/=+$/, ''), // sequence numbers start at 1
      btoa('r1:01').replace(/=+$/, ''), // not canonical
      btoa('r2:1').replace(/=+$/, ''), // unknown format
      `${encodePageToken(1)}=`,
    ];
    for (const pageToken of forged) {
      expect(await invalid(h.listPage('t1', { pageToken }))).toEqual([
        'INVALID_ARGUMENT',
        ['pageToken'],
      ]);
    }
    // R8: every violation at once; R5: validation comes before the task lookup.
    expect(await invalid(h.listPage('nope', { pageSize: 0, pageToken: 'x' }))).toEqual([
      'INVALID_ARGUMENT',
      ['pageSize', 'pageToken'],
    ]);
    const ok = await h.listPage('t1', { pageSize: 1, pageToken: encodePageToken(1) });
    expect(ok.reminders).toEqual([]);
    expect(ok.nextPageToken).toBe('');
    // Another caller's task is still TASK_NOT_FOUND with a valid token (R7).
    const foreign = (await rejection(
      h.listPage('t1', { pageToken: encodePageToken(1) }, caller({ user: 'mallory' })),
    )) as ReminderError;
    expect(foreign.code).toBe('TASK_NOT_FOUND');
  });
});
