import { TaskState } from '@a2a-js/sdk';
import type {
  AgentExecutionEvent,
  AgentExecutor,
  ExecutionEventBus,
  RequestContext,
} from '@a2a-js/sdk/server';
import { AgentEvent, DefaultRequestHandler } from '@a2a-js/sdk/server';
import { ReminderState } from '@a2a-reminders/proto';
import { describe, expect, it } from 'vitest';
import { reminderEventsOf } from './stream-events.js';
import { caller, harness, kinds } from './testing/harness.js';
import { cardOf, sendRequest } from './testing/stock-agent.js';

function status(state: TaskState) {
  return { state, message: undefined, timestamp: new Date().toISOString() };
}

describe('task end', () => {
  it('R27: live reminders end DROPPED if they never reached a turn, EXPIRED if they did', async () => {
    const h = harness();
    const task = await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    const sink = h.openBus('t1');
    const rc = h.requestContext(task);
    await h.inject('t1', { id: 'used', body: 'x', ttlTurns: 1 });
    await h.inject('t1', { id: 'mid', body: 'x', ttlTurns: 3 });
    await h.service.beginTurn(rc, sink.bus);
    await h.inject('t1', { id: 'new', body: 'x' });
    await h.service.endTask(rc, sink.bus, TaskState.TASK_STATE_CANCELED);
    const last = sink.batches().at(-1) ?? [];
    expect(kinds(last)).toEqual(['expired:used', 'expired:mid', 'dropped:new']);
    const [used, mid, dropped] = last.map((e) => e.event);
    expect(used?.case === 'expired' && used.value.taskEnded).toBe(false);
    expect(mid?.case === 'expired' && mid.value).toMatchObject({
      taskEnded: true,
      lastTurn: 1,
      turnsSurfaced: 1,
    });
    expect(dropped?.case === 'dropped' && dropped.value.taskState).toBe('TASK_STATE_CANCELED');
    const states = (await h.list('t1')).reminders.map((r) => r.state);
    expect(states).toEqual([ReminderState.EXPIRED, ReminderState.EXPIRED, ReminderState.DROPPED]);
  });

  it('R27: endTask is idempotent', async () => {
    const h = harness();
    const task = await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    const sink = h.openBus('t1');
    await h.inject('t1', { id: 'a', body: 'x' });
    await h.service.endTask(h.requestContext(task), sink.bus, TaskState.TASK_STATE_COMPLETED);
    await h.service.endTask(h.requestContext(task), sink.bus, TaskState.TASK_STATE_FAILED);
    expect(sink.batches().map(kinds)).toEqual([['dropped:a']]);
    const turn = await h.service.beginTurn(h.requestContext(task), sink.bus);
    expect(turn.reminders).toEqual([]);
  });

  it('R28: a wrapped executor ends reminders before its terminal status update reaches the bus', async () => {
    const h = harness();
    const task = await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    const sink = h.openBus('t1');
    await h.inject('t1', { id: 'a', body: 'x' });
    const executor: AgentExecutor = {
      execute: async (rc, bus) => {
        bus.publish(AgentEvent.task(task));
        await h.service.beginTurn(rc, bus);
        await h.inject('t1', { id: 'late', body: 'y' });
        bus.publish(
          AgentEvent.statusUpdate({
            taskId: 't1',
            contextId: task.contextId,
            status: status(TaskState.TASK_STATE_COMPLETED),
            metadata: undefined,
          }),
        );
        bus.finished();
      },
      cancelTask: async () => {},
    };
    await h.service.wrapExecutor(executor).execute(h.requestContext(task), sink.bus);
    const shape = sink.events.map((e) => describeEvent(e));
    expect(shape).toEqual([
      'task:WORKING',
      'reminders:emitted:a',
      'reminders:expired:a,dropped:late',
      'status:COMPLETED',
    ]);
  });

  it('R28: a terminal task event opening an execution is split so fates still come first', async () => {
    const h = harness();
    const task = await h.saveTask('t1', TaskState.TASK_STATE_INPUT_REQUIRED);
    const sink = h.openBus('t1');
    await h.inject('t1', { id: 'a', body: 'x' });
    const executor: AgentExecutor = {
      execute: async (_rc, bus) => {
        bus.publish(AgentEvent.task({ ...task, status: status(TaskState.TASK_STATE_REJECTED) }));
      },
      cancelTask: async () => {},
    };
    await h.service.wrapExecutor(executor).execute(h.requestContext(task), sink.bus);
    expect(sink.events.map(describeEvent)).toEqual([
      'task:WORKING',
      'reminders:dropped:a',
      'status:REJECTED',
    ]);
  });

  it('R28: when execute throws, reminders end as FAILED before the error propagates', async () => {
    const h = harness();
    const task = await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    const sink = h.openBus('t1');
    await h.inject('t1', { id: 'a', body: 'x' });
    const executor: AgentExecutor = {
      execute: async (_rc, bus) => {
        bus.publish(AgentEvent.task(task));
        throw new Error('boom');
      },
      cancelTask: async () => {},
    };
    await expect(
      h.service.wrapExecutor(executor).execute(h.requestContext(task), sink.bus),
    ).rejects.toThrow('boom');
    const last = sink.batches().at(-1) ?? [];
    expect(kinds(last)).toEqual(['dropped:a']);
    expect(last[0]?.event.case === 'dropped' && last[0].event.value.taskState).toBe(
      'TASK_STATE_FAILED',
    );
  });

  it('R28: cancelTask on the execution bus ends reminders before the CANCELED status', async () => {
    const h = harness();
    const task = await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    const sink = h.openBus('t1');
    await h.inject('t1', { id: 'a', body: 'x' });
    let release: () => void = () => {};
    const running = new Promise<void>((r) => {
      release = r;
    });
    const executor: AgentExecutor = {
      execute: async (_rc, bus) => {
        bus.publish(AgentEvent.task(task));
        await running;
      },
      cancelTask: async (taskId, bus) => {
        bus.publish(
          AgentEvent.statusUpdate({
            taskId,
            contextId: task.contextId,
            status: status(TaskState.TASK_STATE_CANCELED),
            metadata: undefined,
          }),
        );
        release();
      },
    };
    const wrapped = h.service.wrapExecutor(executor);
    const execution = wrapped.execute(h.requestContext(task), sink.bus);
    await wrapped.cancelTask('t1', sink.bus);
    await execution;
    expect(sink.events.map(describeEvent)).toEqual([
      'task:WORKING',
      'reminders:dropped:a',
      'status:CANCELED',
    ]);
  });

  it('R29: a task found terminal with live reminders has them ended at the next rpc', async () => {
    const h = harness();
    await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    await h.inject('t1', { id: 'a', body: 'x' });
    await h.saveTask('t1', TaskState.TASK_STATE_CANCELED);
    const listed = await h.list('t1');
    expect(listed.reminders.map((r) => r.state)).toEqual([ReminderState.DROPPED]);
  });

  it('R32: without a bus, events are recorded and listable but not streamed', async () => {
    const h = harness();
    await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    await h.inject('t1', { id: 'a', body: 'x', dedupeKey: 'k' });
    await h.inject('t1', { id: 'b', body: 'x', dedupeKey: 'k' });
    await h.cancel('t1', 'b');
    const states = (await h.list('t1')).reminders.map((r) => r.state);
    expect(states).toEqual([ReminderState.DISPLACED, ReminderState.CANCELLED]);
  });

  it('R35: records stay listable for retentionMs after task end, then are purged', async () => {
    const h = harness({ limits: { retentionMs: 10_000 } });
    const task = await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    const sink = h.openBus('t1');
    await h.inject('t1', { id: 'a', body: 'x' });
    await h.service.endTask(h.requestContext(task), sink.bus, TaskState.TASK_STATE_COMPLETED);
    await h.saveTask('t1', TaskState.TASK_STATE_COMPLETED);
    h.clock.advance(9_999);
    expect((await h.list('t1')).reminders.length).toBe(1);
    h.clock.advance(1);
    expect((await h.list('t1')).reminders).toEqual([]);
    expect((await h.cancel('t1', 'a').catch((e) => e)).code).toBe('REMINDER_NOT_FOUND');
  });

  it('R34: list returns every record in acceptance order', async () => {
    const h = harness();
    await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    for (const id of ['z', 'a', 'm']) await h.inject('t1', { id, body: id });
    await h.cancel('t1', 'a');
    const listed = await h.list('t1');
    expect(listed.reminders.map((r) => r.reminder?.id)).toEqual(['z', 'a', 'm']);
  });

  it('R28, R30: through the SDK request handler a stream sees every fate before the terminal status', async () => {
    const h = harness();
    const card = cardOf(h);
    let turnGate: () => void = () => {};
    const gate = new Promise<void>((r) => {
      turnGate = r;
    });
    const executor: AgentExecutor = {
      execute: async (rc: RequestContext, bus: ExecutionEventBus) => {
        bus.publish(
          AgentEvent.task({
            id: rc.taskId,
            contextId: rc.contextId,
            status: status(TaskState.TASK_STATE_WORKING),
            artifacts: [],
            history: [],
            metadata: undefined,
          }),
        );
        await gate;
        await h.service.beginTurn(rc, bus);
        bus.publish(
          AgentEvent.statusUpdate({
            taskId: rc.taskId,
            contextId: rc.contextId,
            status: status(TaskState.TASK_STATE_COMPLETED),
            metadata: undefined,
          }),
        );
      },
      cancelTask: async () => {},
    };
    const handler = new DefaultRequestHandler(
      card,
      h.taskStore,
      h.service.wrapExecutor(executor),
      h.busManager,
    );
    const stream = handler.sendMessageStream(sendRequest('hi'), caller());
    const seen: string[] = [];
    for await (const item of stream) {
      const payload = item.payload;
      if (payload?.$case === 'task') {
        seen.push('task');
        await h.inject(payload.value.id, { id: 'r1', body: 'x', ttlTurns: 2 });
        await h.inject(payload.value.id, { id: 'r2', body: 'y' });
        await h.inject(payload.value.id, { id: 'r3', body: 'z', dedupeKey: 'k' });
        await h.inject(payload.value.id, { id: 'r4', body: 'z', dedupeKey: 'k' });
        turnGate();
      } else if (payload?.$case === 'statusUpdate') {
        const events = reminderEventsOf(item);
        seen.push(
          events.length > 0
            ? kinds(events).join(',')
            : `status:${TaskState[payload.value.status?.state ?? 0]}`,
        );
      }
    }
    expect(seen).toEqual([
      'task',
      'displaced:r3',
      'emitted:r1,emitted:r2,emitted:r4',
      'expired:r1,expired:r2,expired:r4',
      'status:TASK_STATE_COMPLETED',
    ]);
  });
});

function describeEvent(e: AgentExecutionEvent): string {
  const events = reminderEventsOf(e);
  if (events.length > 0) return `reminders:${kinds(events).join(',')}`;
  if (e.kind === 'task') return `task:${shortState(e.data.status?.state)}`;
  if (e.kind === 'statusUpdate') return `status:${shortState(e.data.status?.state)}`;
  return e.kind;
}

function shortState(state: TaskState | undefined): string {
  return (TaskState[state ?? 0] ?? '').replace('TASK_STATE_', '');
}
