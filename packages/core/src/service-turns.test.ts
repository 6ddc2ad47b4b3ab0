import { TaskState } from '@a2a-js/sdk';
import { ReminderState } from '@a2a-reminders/proto';
import { describe, expect, it } from 'vitest';
import { harness, kinds } from './testing/harness.js';

async function workingTask() {
  const h = harness();
  const task = await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
  const sink = h.openBus('t1');
  const turn = () => h.service.beginTurn(h.requestContext(task), sink.bus);
  return { h, task, sink, turn };
}

describe('turns', () => {
  it('R19: each boundary increments the turn and returns live reminders in acceptance order', async () => {
    const { h, turn } = await workingTask();
    await h.inject('t1', { id: 'b', body: '2' });
    await h.inject('t1', { id: 'a', body: '1' });
    const t1 = await turn();
    expect(t1.turn).toBe(1);
    expect(t1.taskId).toBe('t1');
    expect(t1.reminders.map((r) => r.id)).toEqual(['b', 'a']);
    const t2 = await turn();
    expect(t2.turn).toBe(2);
    expect(t2.reminders).toEqual([]);
  });

  // R19's interleavings (a boundary and an inject provably overlapping, both
  // ways round) are verified once, in packages/conformance (turns.test.ts), on
  // every arm including this service in process, and on every store.

  it('R20: a reminder is surfaced on ttlTurns consecutive turns from the first boundary after acceptance', async () => {
    const { h, turn } = await workingTask();
    await turn();
    await h.inject('t1', { id: 'r', body: 'x', ttlTurns: 3 });
    const surfaced: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      const t = await turn();
      if (t.reminders.some((r) => r.id === 'r')) surfaced.push(t.turn);
    }
    expect(surfaced).toEqual([2, 3, 4]);
  });

  it('R20: turnsRemaining counts down and firstSurfacing marks the first turn', async () => {
    const { h, turn } = await workingTask();
    await h.inject('t1', { id: 'r', body: 'x', ttlTurns: 2, source: 's', roleHint: 'system' });
    const a = (await turn()).reminders[0];
    const b = (await turn()).reminders[0];
    expect(a).toMatchObject({
      turnsRemaining: 1,
      firstSurfacing: true,
      source: 's',
      roleHint: 'system',
    });
    expect(b).toMatchObject({ turnsRemaining: 0, firstSurfacing: false });
  });

  it('R21: the first surfacing emits EMITTED with the turn and turns remaining, in one batch per boundary', async () => {
    const { h, sink, turn } = await workingTask();
    await h.inject('t1', { id: 'a', body: 'x', ttlTurns: 2 });
    await h.inject('t1', { id: 'b', body: 'y' });
    await turn();
    await turn();
    const batches = sink.batches();
    expect(batches.map(kinds)).toEqual([['emitted:a', 'emitted:b'], ['expired:b']]);
    const emitted = batches[0]?.[0]?.event;
    expect(emitted?.case === 'emitted' && emitted.value).toMatchObject({
      turn: 1,
      turnsRemaining: 1,
    });
  });

  it('R22: EXPIRED is emitted at the boundary after the last turn, with lastTurn and turnsSurfaced', async () => {
    const { h, sink, turn } = await workingTask();
    await h.inject('t1', { id: 'a', body: 'x', ttlTurns: 2 });
    await turn();
    await turn();
    expect((await h.list('t1')).reminders[0]?.state).toBe(ReminderState.ACTIVE);
    await turn();
    const listed = (await h.list('t1')).reminders[0];
    expect(listed?.state).toBe(ReminderState.EXPIRED);
    expect(listed?.firstTurn).toBe(1);
    expect(listed?.turnsRemaining).toBe(0);
    expect(listed?.endTime).toBeDefined();
    const last = sink.batches().at(-1);
    expect(last?.map((e) => e.event)).toEqual([
      {
        case: 'expired',
        value: expect.objectContaining({ lastTurn: 2, turnsSurfaced: 2, taskEnded: false }),
      },
    ]);
  });

  it('R18: a record reports its state, create time, first turn and turns remaining while live', async () => {
    const { h, turn } = await workingTask();
    await h.inject('t1', { id: 'a', body: 'x', ttlTurns: 3 });
    let rec = (await h.list('t1')).reminders[0];
    expect(rec?.state).toBe(ReminderState.PENDING);
    expect(rec?.firstTurn).toBeUndefined();
    expect(rec?.createTime).toBeDefined();
    expect(rec?.endTime).toBeUndefined();
    await turn();
    rec = (await h.list('t1')).reminders[0];
    expect(rec?.state).toBe(ReminderState.ACTIVE);
    expect(rec?.firstTurn).toBe(1);
    expect(rec?.turnsRemaining).toBe(2);
  });

  it('R30: turn events travel as a status update repeating the current status (here one without a message)', async () => {
    const { h, sink, turn } = await workingTask();
    await h.inject('t1', { id: 'a', body: 'x' });
    await turn();
    const update = sink.events.find((e) => e.kind === 'statusUpdate');
    expect(update?.kind).toBe('statusUpdate');
    if (update?.kind !== 'statusUpdate') return;
    expect(update.data.taskId).toBe('t1');
    expect(update.data.contextId).toBe('ctx-t1');
    expect(update.data.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(update.data.status?.message).toBeUndefined();
  });

  it('R31: the status copy follows the latest status seen on the bus', async () => {
    const { h, task, sink, turn } = await workingTask();
    await h.inject('t1', { id: 'a', body: 'x' });
    sink.bus.publish({
      kind: 'statusUpdate',
      data: {
        taskId: 't1',
        contextId: task.contextId,
        status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: 'later' },
        metadata: undefined,
      },
    });
    await turn();
    const last = sink.events.at(-1);
    expect(last?.kind === 'statusUpdate' && last.data.status).toEqual({
      state: TaskState.TASK_STATE_SUBMITTED,
      message: undefined,
      timestamp: 'later',
    });
  });
});
