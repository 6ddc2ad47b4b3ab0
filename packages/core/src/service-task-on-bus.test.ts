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
import {
  InjectTaskReminderRequestSchema,
  ListTaskRemindersRequestSchema,
  ReminderState,
} from '@a2a-reminders/proto';
import { create } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { createReminderService } from './reminder-service.js';
import { caller, rejection } from './testing/harness.js';

// The caller that started an execution finds its task on the bus before the
// A2A server has stored it, and its injects find it there after, without
// reading the task store (R65); nobody else does (R7). A bus that shows a
// terminal status sends the inject to the stored task, and lists and cancels
// always read the stored task (R29).

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
  /** Whose scope each task store read was in, by user name. */
  const loads: string[] = [];
  const load = taskStore.load.bind(taskStore);
  taskStore.load = (taskId, context) => {
    loads.push(context?.user?.userName ?? '');
    return load(taskId, context);
  };
  const busManager = sharedBuses();
  const service = createReminderService({ taskStore, eventBusManager: busManager });
  const alice = caller({ user: 'alice' });
  const list = (context = alice) =>
    service.listTaskReminders(create(ListTaskRemindersRequestSchema, { taskId: 't1' }), context);
  const inject = (id: string, context = alice) =>
    service.injectTaskReminder(
      create(InjectTaskReminderRequestSchema, { taskId: 't1', reminder: { id, body: id } }),
      context,
    );
  let executionBus: ExecutionEventBus | undefined;
  /** Publishes on the running execution's bus, as its executor would. */
  const publish = (event: Parameters<ExecutionEventBus['publish']>[0]) =>
    executionBus?.publish(event);
  /** Runs `during` inside alice's execution of the task, after its first event. */
  async function execute(during: () => Promise<void>): Promise<void> {
    const bus = busManager.createOrGetByTaskId('t1', alice);
    const executor: AgentExecutor = {
      execute: async (_requestContext, eventBus) => {
        executionBus = eventBus;
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
  /** Resolves once the task's bus itself carried a status update to `state`. */
  const seen = (state: TaskState) =>
    new Promise<void>((resolve) => {
      busManager.getByTaskId('t1', alice)?.on('event', (event) => {
        if (event.kind === 'statusUpdate' && event.data.status?.state === state) resolve();
      });
    });
  return { taskStore, loads, alice, inject, list, execute, publish, seen };
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

  it('R65: while its execution runs, a caller of its scope is answered from the bus, without a task store read', async () => {
    const s = setup();
    let accepted = '';
    let foreign: unknown;
    await s.execute(async () => {
      await s.taskStore.save(task, s.alice);
      // Stored as INPUT_REQUIRED behind the execution's back; its bus still shows WORKING.
      const waiting = { ...task, status: { state: TaskState.TASK_STATE_INPUT_REQUIRED } };
      await s.taskStore.save(waiting as Task, s.alice);
      s.loads.length = 0;
      accepted = (await s.inject('a')).taskState;
      foreign = await rejection(s.inject('b', caller({ user: 'mallory' })));
    });
    expect(accepted).toBe('TASK_STATE_WORKING');
    // Only the foreign caller's lookup read the store, in its own scope (R7).
    expect(s.loads).toEqual(['mallory']);
    expect(foreign).toMatchObject({ code: 'TASK_NOT_FOUND' });
  });

  it('once its bus shows a terminal status, the stored task decides an inject, and a terminal one is refused (R12, R29)', async () => {
    const s = setup();
    let refused: unknown;
    await s.execute(async () => {
      await s.inject('a');
      const ended = { ...task, status: { state: TaskState.TASK_STATE_REJECTED } };
      await s.taskStore.save(ended as Task, s.alice);
      // The terminal status reaches the bus once the reminders ended (R28).
      const onBus = s.seen(TaskState.TASK_STATE_REJECTED);
      s.publish(
        AgentEvent.statusUpdate({
          taskId: 't1',
          contextId: 'ctx-t1',
          status: {
            state: TaskState.TASK_STATE_REJECTED,
            message: undefined,
            timestamp: undefined,
          },
          metadata: {},
        }),
      );
      await onBus;
      s.loads.length = 0;
      refused = await rejection(s.inject('b'));
    });
    // The terminal status on the bus sent the inject to the stored task.
    expect(s.loads).toEqual(['alice']);
    expect(refused).toMatchObject({
      code: 'TASK_TERMINAL',
      metadata: { taskId: 't1', taskState: 'TASK_STATE_REJECTED' },
    });
  });

  it('R29: a list reads the stored task even while the execution runs, and ends the reminders of one stored terminal', async () => {
    const s = setup();
    let listed: readonly string[] = [];
    let refused: unknown;
    await s.execute(async () => {
      await s.taskStore.save(task, s.alice);
      await s.inject('a');
      // Stored terminal behind the execution's back; its bus still shows WORKING.
      const ended = { ...task, status: { state: TaskState.TASK_STATE_REJECTED } };
      await s.taskStore.save(ended as Task, s.alice);
      listed = (await s.list()).reminders.map((r) => ReminderState[r.state]);
      refused = await rejection(s.inject('b'));
    });
    expect(listed).toEqual(['DROPPED']);
    expect(refused).toMatchObject({
      code: 'TASK_TERMINAL',
      metadata: { taskId: 't1', taskState: 'TASK_STATE_REJECTED' },
    });
  });

  it('R65: an execution that ended interrupted leaves its bus, and the stored task decides an inject again', async () => {
    const s = setup();
    await s.execute(async () => {
      await s.taskStore.save(task, s.alice);
      s.publish(
        AgentEvent.statusUpdate({
          taskId: 't1',
          contextId: 'ctx-t1',
          status: {
            state: TaskState.TASK_STATE_INPUT_REQUIRED,
            message: undefined,
            timestamp: undefined,
          },
          metadata: {},
        }),
      );
    });
    // The bus stays (as the A2A server keeps an interrupted task's); the task
    // is then stored terminal by another writer.
    const ended = { ...task, status: { state: TaskState.TASK_STATE_CANCELED } };
    await s.taskStore.save(ended as Task, s.alice);
    s.loads.length = 0;
    const refused = await rejection(s.inject('a'));
    expect(s.loads).toEqual(['alice']);
    expect(refused).toMatchObject({
      code: 'TASK_TERMINAL',
      metadata: { taskId: 't1', taskState: 'TASK_STATE_CANCELED' },
    });
  });
});
