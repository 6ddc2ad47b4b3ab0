import { TaskState } from '@a2a-js/sdk';
import { ReminderState } from '@a2a-reminders/proto';
import { describe, expect, it } from 'vitest';
import type { ReminderError } from './errors.js';
import { harness, kinds, rejection } from './testing/harness.js';

async function setup() {
  const h = harness();
  const task = await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
  const sink = h.openBus('t1');
  const turn = () => h.service.beginTurn(h.requestContext(task), sink.bus);
  return { h, task, sink, turn };
}

describe('cancel', () => {
  it('R23: cancelling a live reminder makes it CANCELLED with an event', async () => {
    const { h, sink, turn } = await setup();
    await h.inject('t1', { id: 'p', body: 'pending' });
    await h.inject('t1', { id: 'a', body: 'active', ttlTurns: 3 });
    await turn();
    await h.inject('t1', { id: 'q', body: 'pending 2' });
    const res = await h.cancel('t1', 'q');
    expect(res.record?.state).toBe(ReminderState.CANCELLED);
    expect(res.record?.turnsRemaining).toBe(0);
    expect(res.record?.endTime).toBeDefined();
    const active = await h.cancel('t1', 'a');
    expect(active.record?.state).toBe(ReminderState.CANCELLED);
    const batches = sink.batches();
    expect(batches.slice(-2).map(kinds)).toEqual([['cancelled:q'], ['cancelled:a']]);
    const ev = batches.at(-1)?.[0]?.event;
    expect(ev?.case === 'cancelled' && ev.value.turnsSurfaced).toBe(1);
    // p used its one turn and leaves at this boundary; a and q never come back.
    expect((await turn()).reminders).toEqual([]);
    const states = (await h.list('t1')).reminders.map((r) => [r.reminder?.id, r.state]);
    expect(states).toEqual([
      ['p', ReminderState.EXPIRED],
      ['a', ReminderState.CANCELLED],
      ['q', ReminderState.CANCELLED],
    ]);
  });

  it('R24: cancelling a cancelled reminder returns it unchanged, with no event', async () => {
    const { h, sink } = await setup();
    await h.inject('t1', { id: 'a', body: 'x' });
    const first = await h.cancel('t1', 'a');
    const count = sink.events.length;
    h.clock.advance(1000);
    const again = await h.cancel('t1', 'a');
    expect(again).toEqual(first);
    expect(sink.events.length).toBe(count);
  });

  it('R25: cancelling an expired, displaced or dropped reminder is REMINDER_NOT_LIVE', async () => {
    const { h, turn, task, sink } = await setup();
    await h.inject('t1', { id: 'exp', body: 'x' });
    await turn();
    await turn();
    await h.inject('t1', { id: 'd1', body: 'x', dedupeKey: 'k' });
    await h.inject('t1', { id: 'd2', body: 'x', dedupeKey: 'k' });
    for (const [id, state] of [
      ['exp', 'REMINDER_STATE_EXPIRED'],
      ['d1', 'REMINDER_STATE_DISPLACED'],
    ] as const) {
      const err = (await rejection(h.cancel('t1', id))) as ReminderError;
      expect(err.code).toBe('REMINDER_NOT_LIVE');
      expect(err.metadata).toEqual({ taskId: 't1', reminderId: id, reminderState: state });
    }
    await h.service.endTask(h.requestContext(task), sink.bus, TaskState.TASK_STATE_COMPLETED);
    const err = (await rejection(h.cancel('t1', 'd2'))) as ReminderError;
    expect(err.code).toBe('REMINDER_NOT_LIVE');
    expect(err.metadata.reminderState).toBe('REMINDER_STATE_DROPPED');
  });

  it('R26: cancelling an unknown id is REMINDER_NOT_FOUND', async () => {
    const { h } = await setup();
    const err = (await rejection(h.cancel('t1', 'nope'))) as ReminderError;
    expect(err.code).toBe('REMINDER_NOT_FOUND');
    expect(err.metadata).toEqual({ taskId: 't1', reminderId: 'nope' });
  });
});
