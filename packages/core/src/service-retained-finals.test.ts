import { TaskState } from '@a2a-js/sdk';
import type { ListTaskRemindersResponse } from '@a2a-reminders/proto';
import { ReminderState } from '@a2a-reminders/proto';
import { timestampMs } from '@bufbuild/protobuf/wkt';
import { describe, expect, it } from 'vitest';
import type { ReminderError } from './errors.js';
import { defaultReminderLimits } from './limits.js';
import type { Harness } from './testing/harness.js';
import { harness, kinds, rejection } from './testing/harness.js';

// R48: a task keeps at most maxRetainedFinalRemindersPerTask final records,
// purging the oldest to become final first and never a live one; an id whose
// record was purged is unknown again.

async function setup(maxRetainedFinalRemindersPerTask: number) {
  const h = harness({ limits: { maxRetainedFinalRemindersPerTask } });
  const task = await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
  const sink = h.openBus('t1');
  const turn = () => h.service.beginTurn(h.requestContext(task), sink.bus);
  return { h, task, sink, turn };
}

/** Every retained record, following every page (R49). */
async function listAll(h: Harness, taskId: string) {
  const all: NonNullable<ListTaskRemindersResponse['reminders']> = [];
  let pageToken = '';
  do {
    const page = await h.listPage(taskId, { pageToken, pageSize: 100 });
    all.push(...page.reminders);
    pageToken = page.nextPageToken;
  } while (pageToken !== '');
  return all;
}

const idsAndStates = (records: Awaited<ReturnType<typeof listAll>>) =>
  records.map((r) => [r.reminder?.id, ReminderState[r.state]]);

describe('retained final records (R48)', () => {
  it('the default cap is 128, twice the live quota, and the agent card advertises it', () => {
    expect(defaultReminderLimits.maxRetainedFinalRemindersPerTask).toBe(128);
    expect(defaultReminderLimits.maxRetainedFinalRemindersPerTask).toBe(
      2 * defaultReminderLimits.maxLiveRemindersPerTask,
    );
    const h = harness({ limits: { maxRetainedFinalRemindersPerTask: 7 } });
    expect(h.service.agentExtension().params).toMatchObject({
      maxRetainedFinalRemindersPerTask: 7,
    });
  });

  it('the cap is a whole number: any other is refused when the service is made', () => {
    for (const cap of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => harness({ limits: { maxRetainedFinalRemindersPerTask: cap } })).toThrow(
        RangeError,
      );
    }
    expect(() => harness({ limits: { maxRetainedFinalRemindersPerTask: 0 } })).not.toThrow();
  });

  it('a displacement chain keeps the newest finals and every live record, however old', async () => {
    const { h, turn } = await setup(3);
    await h.inject('t1', { id: 'old-live', body: 'stays', ttlTurns: 20 });
    await turn();
    for (let i = 0; i < 10; i += 1) {
      await h.inject('t1', { id: `c${i}`, body: `cost ${i}`, dedupeKey: 'cost' });
    }
    expect(idsAndStates(await listAll(h, 't1'))).toEqual([
      ['old-live', 'ACTIVE'],
      ['c6', 'DISPLACED'],
      ['c7', 'DISPLACED'],
      ['c8', 'DISPLACED'],
      ['c9', 'PENDING'],
    ]);
  });

  it('purges in the order records became final, not the order they were accepted', async () => {
    const { h, turn } = await setup(2);
    await h.inject('t1', { id: 'a', body: 'long', ttlTurns: 3 });
    await h.inject('t1', { id: 'b', body: 'short' });
    await h.inject('t1', { id: 'c', body: 'short' });
    await turn();
    await turn(); // b and c expire here; a is still active
    expect(idsAndStates(await listAll(h, 't1'))).toEqual([
      ['a', 'ACTIVE'],
      ['b', 'EXPIRED'],
      ['c', 'EXPIRED'],
    ]);
    // The cancel makes a the newest final record: b, the oldest to end, goes.
    await h.cancel('t1', 'a');
    expect(idsAndStates(await listAll(h, 't1'))).toEqual([
      ['a', 'CANCELLED'],
      ['c', 'EXPIRED'],
    ]);
  });

  it('the task end purges in the same step, so the bound holds right after it', async () => {
    const { h, task, sink } = await setup(2);
    for (const id of ['x', 'y', 'z']) await h.inject('t1', { id, body: id });
    await h.service.endTask(h.requestContext(task), sink.bus, TaskState.TASK_STATE_COMPLETED);
    // Every fate was still announced on the stream, in one batch.
    expect(
      sink
        .batches()
        .at(-1)
        ?.map((e) => e.reminderId),
    ).toEqual(['x', 'y', 'z']);
    expect(idsAndStates(await listAll(h, 't1'))).toEqual([
      ['y', 'DROPPED'],
      ['z', 'DROPPED'],
    ]);
  });

  it('a re-send of a purged id is a new reminder; a retained one still replays (R13)', async () => {
    const { h, sink } = await setup(1);
    const first = await h.inject('t1', { id: 'd1', body: 'one', dedupeKey: 'k' });
    const second = await h.inject('t1', { id: 'd2', body: 'two', dedupeKey: 'k' });
    await h.inject('t1', { id: 'd3', body: 'three', dedupeKey: 'k' }); // d1 purged here
    // d2 is retained (DISPLACED): its identical re-send replays the original answer.
    const eventsBefore = sink.events.length;
    expect(await h.inject('t1', { id: 'd2', body: 'two', dedupeKey: 'k' })).toEqual(second);
    expect(sink.events.length).toBe(eventsBefore);
    // d1 was purged: the same re-send is accepted anew, displacing the live d3.
    h.clock.advance(1000);
    const again = await h.inject('t1', { id: 'd1', body: 'one', dedupeKey: 'k' });
    expect(again).not.toEqual(first);
    expect(again.displacedReminderIds).toEqual(['d3']);
    expect(again.record?.state).toBe(ReminderState.PENDING);
    const createTime = again.record?.createTime;
    expect(createTime === undefined ? undefined : timestampMs(createTime)).toBe(h.clock.ms);
    expect(kinds(sink.batches().at(-1) ?? [])).toEqual(['displaced:d3']);
    // Purged ids are free: different content is no REMINDER_ID_CONFLICT either.
    await h.cancel('t1', 'd1'); // d1 (new) is final now; d3 purged
    const reused = await h.inject('t1', { id: 'd3', body: 'different', ttlTurns: 2 });
    expect(reused.record?.reminder?.body).toBe('different');
    expect(idsAndStates(await listAll(h, 't1'))).toEqual([
      ['d1', 'CANCELLED'],
      ['d3', 'PENDING'],
    ]);
  });

  it('cancelling a purged id is REMINDER_NOT_FOUND (R26)', async () => {
    const { h } = await setup(1);
    await h.inject('t1', { id: 'a', body: 'x' });
    await h.inject('t1', { id: 'b', body: 'x' });
    await h.cancel('t1', 'a');
    await h.cancel('t1', 'b'); // a purged
    const error = (await rejection(h.cancel('t1', 'a'))) as ReminderError;
    expect([error.code, error.metadata]).toEqual([
      'REMINDER_NOT_FOUND',
      { taskId: 't1', reminderId: 'a' },
    ]);
    expect((await h.cancel('t1', 'b')).record?.state).toBe(ReminderState.CANCELLED);
  });

  it('a task that runs for days stays bounded: 1,000 displacing injects keep 128 finals and 1 live', async () => {
    const { h } = await setup(defaultReminderLimits.maxRetainedFinalRemindersPerTask);
    for (let i = 0; i < 1000; i += 1) {
      await h.inject('t1', { id: `m${i}`, body: `fired ${i}`, dedupeKey: 'monitor' });
    }
    const all = await listAll(h, 't1');
    expect(all.length).toBe(129);
    expect(all[0]?.reminder?.id).toBe('m871');
    expect(all.filter((r) => r.state === ReminderState.PENDING).map((r) => r.reminder?.id)).toEqual(
      ['m999'],
    );
  });
});
