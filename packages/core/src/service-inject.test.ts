import { TaskState } from '@a2a-js/sdk';
import { ReminderState } from '@a2a-reminders/proto';
import { describe, expect, it } from 'vitest';
import type { ReminderError } from './errors.js';
import { harness, kinds, rejection } from './testing/harness.js';

describe('inject', () => {
  it('R13: re-sending the same id and content returns the original response and changes nothing', async () => {
    const h = harness();
    await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    const sink = h.openBus('t1');
    await h.inject('t1', { id: 'old', body: 'x', dedupeKey: 'k' });
    const first = await h.inject('t1', {
      id: 'r1',
      body: 'b',
      dedupeKey: 'k',
      metadata: { a: 1, b: [1, 2] },
    });
    const eventsBefore = sink.events.length;
    h.clock.advance(5000);
    const again = await h.inject('t1', {
      id: 'r1',
      body: 'b',
      dedupeKey: 'k',
      ttlTurns: 1,
      metadata: { b: [1, 2], a: 1 },
    });
    expect(again).toEqual(first);
    expect(again.displacedReminderIds).toEqual(['old']);
    expect(sink.events.length).toBe(eventsBefore);
    expect((await h.list('t1')).reminders.length).toBe(2);
  });

  it('R14: the same id with different content is REMINDER_ID_CONFLICT on reminder.id', async () => {
    const h = harness();
    await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    await h.inject('t1', { id: 'r1', body: 'b' });
    for (const changed of [
      { id: 'r1', body: 'c' },
      { id: 'r1', body: 'b', ttlTurns: 2 },
      { id: 'r1', body: 'b', source: 's' },
      { id: 'r1', body: 'b', roleHint: 'system' },
      { id: 'r1', body: 'b', dedupeKey: 'k' },
      { id: 'r1', body: 'b', metadata: { a: 1 } },
    ]) {
      const err = (await rejection(h.inject('t1', changed))) as ReminderError;
      expect(err.code).toBe('REMINDER_ID_CONFLICT');
      expect(err.fieldViolations.map((v) => v.field)).toEqual(['reminder.id']);
      expect(err.metadata).toEqual({ taskId: 't1', reminderId: 'r1' });
    }
  });

  it('R15: a dedupeKey displaces every live reminder of the task with that key', async () => {
    const h = harness();
    const task = await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    const sink = h.openBus('t1');
    await h.inject('t1', { id: 'a', body: 'cost 1', dedupeKey: 'cost', ttlTurns: 3 });
    await h.service.beginTurn(h.requestContext(task), sink.bus);
    await h.inject('t1', { id: 'b', body: 'other', dedupeKey: 'other' });
    await h.inject('t1', { id: 'c', body: 'plain' });
    const res = await h.inject('t1', { id: 'd', body: 'cost 2', dedupeKey: 'cost' });
    expect(res.displacedReminderIds).toEqual(['a']);
    const listed = await h.list('t1');
    const byId = Object.fromEntries(listed.reminders.map((r) => [r.reminder?.id, r]));
    expect(byId.a?.state).toBe(ReminderState.DISPLACED);
    expect(byId.a?.displacedBy).toBe('d');
    expect(byId.a?.turnsRemaining).toBe(0);
    expect(byId.b?.state).toBe(ReminderState.PENDING);
    expect(byId.c?.state).toBe(ReminderState.PENDING);
    expect(byId.d?.state).toBe(ReminderState.PENDING);
  });

  it('R15: an empty dedupeKey displaces nothing', async () => {
    const h = harness();
    await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    await h.inject('t1', { id: 'a', body: 'x' });
    const res = await h.inject('t1', { id: 'b', body: 'y' });
    expect(res.displacedReminderIds).toEqual([]);
  });

  it('R16: displaced reminders get one DISPLACED batch naming their successor', async () => {
    const h = harness({ limits: { maxLiveRemindersPerTask: 10 } });
    await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    const sink = h.openBus('t1');
    // Two live ones with one key can only arise across ids; the store allows it when loaded.
    await h.inject('t1', { id: 'a', body: 'x', dedupeKey: 'k' });
    await h.inject('t1', { id: 'b', body: 'y', dedupeKey: 'k' });
    await h.inject('t1', { id: 'c', body: 'z', dedupeKey: 'k' });
    const batches = sink.batches();
    expect(batches.map(kinds)).toEqual([['displaced:a'], ['displaced:b']]);
    const event = batches[1]?.[0];
    expect(event?.event.case === 'displaced' && event.event.value.displacedBy).toBe('c');
    expect(event?.dedupeKey).toBe('k');
  });

  it('R17: at the quota the inject is refused and nothing is evicted', async () => {
    const h = harness({ limits: { maxLiveRemindersPerTask: 2 } });
    await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    await h.inject('t1', { id: 'a', body: 'x' });
    await h.inject('t1', { id: 'b', body: 'y', dedupeKey: 'k' });
    const err = (await rejection(h.inject('t1', { id: 'c', body: 'z' }))) as ReminderError;
    expect(err.code).toBe('REMINDER_QUOTA_EXCEEDED');
    expect(err.metadata).toEqual({ taskId: 't1', limit: '2' });
    const listed = await h.list('t1');
    expect(listed.reminders.map((r) => [r.reminder?.id, r.state])).toEqual([
      ['a', ReminderState.PENDING],
      ['b', ReminderState.PENDING],
    ]);
  });

  it('R17: reminders the new one displaces do not count against the quota', async () => {
    const h = harness({ limits: { maxLiveRemindersPerTask: 2 } });
    await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    await h.inject('t1', { id: 'a', body: 'x' });
    await h.inject('t1', { id: 'b', body: 'y', dedupeKey: 'k' });
    const res = await h.inject('t1', { id: 'c', body: 'z', dedupeKey: 'k' });
    expect(res.displacedReminderIds).toEqual(['b']);
  });

  it('R17: final reminders do not count against the quota', async () => {
    const h = harness({ limits: { maxLiveRemindersPerTask: 1 } });
    await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    await h.inject('t1', { id: 'a', body: 'x' });
    await h.cancel('t1', 'a');
    await expect(h.inject('t1', { id: 'b', body: 'y' })).resolves.toBeDefined();
  });

  it('R9: the response holds the effective ttlTurns', async () => {
    const h = harness();
    await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    const res = await h.inject('t1', { id: 'a', body: 'x' });
    expect(res.record?.reminder?.ttlTurns).toBe(1);
    expect(res.record?.turnsRemaining).toBe(1);
    expect(res.record?.taskId).toBe('t1');
  });
});
