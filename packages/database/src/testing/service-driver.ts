import { SendMessageRequest, Task } from '@a2a-js/sdk';
import type { ServerCallContext } from '@a2a-js/sdk/server';
import {
  ServerCallContext as CallContext,
  DefaultExecutionEventBusManager,
  InMemoryTaskStore,
  RequestContext,
} from '@a2a-js/sdk/server';
import type { ReminderLimits, ReminderService, ReminderStore } from '@a2a-reminders/core';
import { createReminderService, TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import type { TaskReminderSchema } from '@a2a-reminders/proto';
import {
  CancelTaskReminderRequestSchema,
  InjectTaskReminderRequestSchema,
  ListTaskRemindersRequestSchema,
} from '@a2a-reminders/proto';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { create } from '@bufbuild/protobuf';

export type ReminderInit = MessageInitShape<typeof TaskReminderSchema>;

/**
 * Core's reminder service on a given store, with the SDK's in-memory task
 * store and bus manager: the operations as a worker runs them, so a test
 * sees the statements a real inject, turn boundary or list issues.
 */
export function serviceOn(store: ReminderStore, limits: Partial<ReminderLimits> = {}) {
  const taskStore = new InMemoryTaskStore();
  const busManager = new DefaultExecutionEventBusManager();
  const service: ReminderService = createReminderService({
    taskStore,
    eventBusManager: busManager,
    store,
    limits,
  });
  const ctx: ServerCallContext = new CallContext({
    requestedExtensions: [TASK_REMINDERS_EXTENSION_URI],
    requestedVersion: '1.0',
  });

  async function working(taskId: string): Promise<Task> {
    const task = Task.fromJSON({
      id: taskId,
      contextId: `ctx-${taskId}`,
      status: { state: 'TASK_STATE_WORKING', timestamp: '2026-01-01T00:00:00.000Z' },
    });
    await taskStore.save(task, ctx);
    return task;
  }

  function requestContext(task: Task): RequestContext {
    const request = SendMessageRequest.fromJSON({
      message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'go' }], taskId: task.id },
    });
    return new RequestContext(request, task.id, task.contextId, ctx, task);
  }

  return {
    service,
    taskStore,
    ctx,
    working,
    inject: (taskId: string, reminder: ReminderInit) =>
      service.injectTaskReminder(
        create(InjectTaskReminderRequestSchema, { taskId, reminder }),
        ctx,
      ),
    list: (
      taskId: string,
      page: { pageSize?: number; pageToken?: string; liveOnly?: boolean } = {},
    ) =>
      service.listTaskReminders(create(ListTaskRemindersRequestSchema, { taskId, ...page }), ctx),
    cancel: (taskId: string, reminderId: string) =>
      service.cancelTaskReminder(
        create(CancelTaskReminderRequestSchema, { taskId, reminderId }),
        ctx,
      ),
    turn: (task: Task) =>
      service.beginTurn(requestContext(task), busManager.createOrGetByTaskId(task.id, ctx)),
    end: (task: Task, state: Parameters<ReminderService['endTask']>[2]) =>
      service.endTask(requestContext(task), busManager.createOrGetByTaskId(task.id, ctx), state),
  };
}
