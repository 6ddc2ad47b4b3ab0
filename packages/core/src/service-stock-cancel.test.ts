import { TaskState } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { AgentEvent, DefaultRequestHandler } from '@a2a-js/sdk/server';
import { ReminderState } from '@a2a-reminders/proto';
import { describe, expect, it } from 'vitest';
import { reminderEventsOf } from './stream-events.js';
import { caller, harness, kinds } from './testing/harness.js';
import { cardOf, sendRequest } from './testing/stock-agent.js';

// A stock CancelTask (DefaultRequestHandler.cancelTask) against executors run
// through wrapExecutor: the task must end CANCELED and subscribers must see
// every reminder's fate before their stream closes.

function status(state: TaskState) {
  return { state, message: undefined, timestamp: new Date().toISOString() };
}

function publishStatus(bus: ExecutionEventBus, rc: RequestContext, state: TaskState): void {
  bus.publish(
    AgentEvent.statusUpdate({
      taskId: rc.taskId,
      contextId: rc.contextId,
      status: status(state),
      metadata: undefined,
    }),
  );
}

function publishTask(bus: ExecutionEventBus, rc: RequestContext, state: TaskState): void {
  bus.publish(
    AgentEvent.task({
      id: rc.taskId,
      contextId: rc.contextId,
      status: status(state),
      artifacts: [],
      history: [],
      metadata: undefined,
    }),
  );
}

async function taskIdOf(handler: DefaultRequestHandler, text: string): Promise<string> {
  const result = await handler.sendMessage(sendRequest(text), caller());
  if (!('status' in result)) throw new Error('expected a task');
  return result.id;
}

describe('a stock CancelTask through wrapExecutor', () => {
  it('R28: a CANCELED published by cancelTask while execute runs is stored, after the fates', async () => {
    const h = harness();
    let stop: () => void = () => {};
    const stopped = new Promise<void>((resolve) => {
      stop = resolve;
    });
    let running: RequestContext | undefined;
    const executor: AgentExecutor = {
      execute: async (rc, bus) => {
        running = rc;
        publishTask(bus, rc, TaskState.TASK_STATE_WORKING);
        await stopped; // the execution ends as soon as it is told to
      },
      cancelTask: async (_taskId, bus) => {
        if (running !== undefined) publishStatus(bus, running, TaskState.TASK_STATE_CANCELED);
        stop();
      },
    };
    const handler = new DefaultRequestHandler(
      cardOf(h),
      h.taskStore,
      h.service.wrapExecutor(executor),
      h.busManager,
    );
    const taskId = await taskIdOf(handler, 'run');
    await h.inject(taskId, { id: 'p', body: 'pending at cancel' });

    const cancelled = await handler.cancelTask({ tenant: '', id: taskId, metadata: {} }, caller());

    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await h.taskStore.load(taskId, caller()))?.status?.state).toBe(
      TaskState.TASK_STATE_CANCELED,
    );
    const listed = await h.list(taskId);
    expect(listed.reminders.map((r) => r.state)).toEqual([ReminderState.DROPPED]);
  });

  it('R30: while INPUT_REQUIRED, fates are held and ride on the terminal update, so streams stay open until it', async () => {
    const h = harness();
    let scope: RequestContext | undefined;
    const executor: AgentExecutor = {
      execute: async (rc, bus) => {
        scope = rc;
        publishTask(bus, rc, TaskState.TASK_STATE_WORKING);
        publishStatus(bus, rc, TaskState.TASK_STATE_INPUT_REQUIRED);
      },
      cancelTask: async (_taskId, bus) => {
        if (scope !== undefined) publishStatus(bus, scope, TaskState.TASK_STATE_CANCELED);
      },
    };
    const handler = new DefaultRequestHandler(
      cardOf(h),
      h.taskStore,
      h.service.wrapExecutor(executor),
      h.busManager,
    );
    const taskId = await taskIdOf(handler, 'ask');
    await h.inject(taskId, { id: 'a', body: 'first', dedupeKey: 'k' });

    const seen: string[] = [];
    const stream = handler.resubscribe({ tenant: '', id: taskId }, caller());
    const iterator = stream[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.value?.payload?.$case).toBe('task');

    // Displacing 'a' while INPUT_REQUIRED must not publish a status copy that
    // would end this stream; the event is held.
    const displaced = await h.inject(taskId, { id: 'b', body: 'second', dedupeKey: 'k' });
    expect(displaced.displacedReminderIds).toEqual(['a']);

    const cancelled = handler.cancelTask({ tenant: '', id: taskId, metadata: {} }, caller());
    for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) {
      const payload = next.value.payload;
      if (payload?.$case !== 'statusUpdate') continue;
      const events = reminderEventsOf(next.value);
      seen.push(
        `${TaskState[payload.value.status?.state ?? 0]}${events.length > 0 ? ` ${kinds(events).join(',')}` : ''}`,
      );
    }

    expect((await cancelled).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(seen).toEqual(['TASK_STATE_CANCELED displaced:a,dropped:b']);
  });
});
