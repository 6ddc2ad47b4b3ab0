import { SendMessageRequest, Task, TaskState } from '@a2a-js/sdk';
import type {
  AgentExecutor,
  ExecutionEventBus,
  ExecutionEventBusManager,
} from '@a2a-js/sdk/server';
import {
  AgentEvent,
  DefaultExecutionEventBus,
  InMemoryTaskStore,
  RequestContext,
} from '@a2a-js/sdk/server';
import { InjectTaskReminderRequestSchema } from '@a2a-reminders/proto';
import { create } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { createReminderService } from './reminder-service.js';
import { caller, rejection } from './testing/harness.js';

// The caller that started an execution finds its task on the bus before the
// A2A server has stored it (rpc-handlers.ts, startedByCaller); nobody else
// does, and a stored task is always read from the task store (R7, R29).

/** A bus manager that finds a task's bus for any caller: only the stores' scoping keeps others out. */
function sharedBuses(): ExecutionEventBusManager {
  const buses = new Map<string, ExecutionEventBus>();
  return {
    createOrGetByTaskId: (taskId) => {
      const bus = buses.get(taskId) ?? new DefaultExecutionEventBus();
      buses.set(taskId, bus);
      return bus;
    },
    getByTaskId: (taskId) => buses.get(taskId),
    cleanupByTaskId: (taskId) => {
      buses.delete(taskId);
    },
  };
}

const task = Task.fromJSON({
  id: 't1',
  contextId: 'ctx-t1',
  status: { state: 'TASK_STATE_WORKING' },
});

function setup() {
  const taskStore = new InMemoryTaskStore();
  const busManager = sharedBuses();
  const service = createReminderService({ taskStore, eventBusManager: busManager });
  const alice = caller({ user: 'alice' });
  const inject = (id: string, context = alice) =>
    service.injectTaskReminder(
      create(InjectTaskReminderRequestSchema, { taskId: 't1', reminder: { id, body: id } }),
      context,
    );
  /** Runs `during` inside alice's execution of the task, after its first event. */
  async function execute(during: () => Promise<void>): Promise<void> {
    const bus = busManager.createOrGetByTaskId('t1', alice);
    const executor: AgentExecutor = {
      execute: async (_requestContext, eventBus) => {
        eventBus.publish(AgentEvent.task(task));
        await during();
      },
      cancelTask: async () => {},
    };
    const request = SendMessageRequest.fromJSON({
      message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'go' }], taskId: 't1' },
    });
    const context = new RequestContext(request, 't1', 'ctx-t1', alice, task);
    await service.wrapExecutor(executor).execute(context, bus);
  }
  return { taskStore, alice, inject, execute };
}

describe('a task its execution has not stored yet', () => {
  it('is found by the caller that started the execution, and by no one else (R7)', async () => {
    const s = setup();
    let accepted = '';
    let foreign: unknown;
    await s.execute(async () => {
      accepted = (await s.inject('a')).taskState;
      foreign = await rejection(s.inject('b', caller({ user: 'mallory' })));
    });
    expect(accepted).toBe('TASK_STATE_WORKING');
    expect(foreign).toMatchObject({ code: 'TASK_NOT_FOUND' });
    expect(await s.taskStore.load('t1', s.alice)).toBeUndefined();
  });

  it('once stored, is read from the task store, a terminal one refused (R12, R29)', async () => {
    const s = setup();
    let refused: unknown;
    await s.execute(async () => {
      await s.inject('a');
      // Stored terminal behind the execution's back; its bus still shows WORKING.
      const ended = { ...task, status: { state: TaskState.TASK_STATE_REJECTED } };
      await s.taskStore.save(ended as Task, s.alice);
      refused = await rejection(s.inject('b'));
    });
    expect(refused).toMatchObject({
      code: 'TASK_TERMINAL',
      metadata: { taskId: 't1', taskState: 'TASK_STATE_REJECTED' },
    });
  });
});
