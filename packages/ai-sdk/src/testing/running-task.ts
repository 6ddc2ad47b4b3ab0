import { SendMessageRequest, Task } from '@a2a-js/sdk';
import type { AgentExecutionEvent } from '@a2a-js/sdk/server';
import {
  DefaultExecutionEventBusManager,
  InMemoryTaskStore,
  RequestContext,
  ServerCallContext,
} from '@a2a-js/sdk/server';
import {
  createReminderService,
  reminderEventsOf,
  TASK_REMINDERS_EXTENSION_URI,
} from '@a2a-reminders/core';
import type { TaskReminderEvent } from '@a2a-reminders/proto';
import {
  InjectTaskReminderRequestSchema,
  ListTaskRemindersRequestSchema,
  type TaskReminderSchema,
} from '@a2a-reminders/proto';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { create } from '@bufbuild/protobuf';
import { reminderTurns } from '../turn-source.js';

/**
 * A WORKING task on the real SDK stores and bus manager with a reminder
 * service, as an executor holds it mid-execution: what an adapter's turn
 * source needs, plus inject and list as a caller makes them.
 */
export async function runningTask(taskId = 'task-1') {
  const taskStore = new InMemoryTaskStore();
  const eventBusManager = new DefaultExecutionEventBusManager();
  const service = createReminderService({ taskStore, eventBusManager, displacedEventDelayMs: 0 });
  const context = new ServerCallContext({
    requestedExtensions: [TASK_REMINDERS_EXTENSION_URI],
    requestedVersion: '1.0',
  });
  const task = Task.fromJSON({
    id: taskId,
    contextId: `ctx-${taskId}`,
    status: { state: 'TASK_STATE_WORKING', timestamp: '2026-01-01T00:00:00.000Z' },
  });
  await taskStore.save(task, context);
  const bus = eventBusManager.createOrGetByTaskId(taskId, context);
  const events: AgentExecutionEvent[] = [];
  bus.on('event', (e) => events.push(e));
  const request = SendMessageRequest.fromJSON({
    message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'go' }], taskId },
  });
  const requestContext = new RequestContext(request, taskId, task.contextId, context, task);
  return {
    service,
    requestContext,
    bus,
    turns: reminderTurns(service, requestContext, bus),
    inject: (reminder: MessageInitShape<typeof TaskReminderSchema>) =>
      service.injectTaskReminder(
        create(InjectTaskReminderRequestSchema, { taskId, reminder }),
        context,
      ),
    list: async () =>
      (await service.listTaskReminders(create(ListTaskRemindersRequestSchema, { taskId }), context))
        .reminders,
    /** The reminder events published on the task's bus, batch by batch. */
    batches: (): TaskReminderEvent[][] =>
      events.map((e) => reminderEventsOf(e)).filter((b) => b.length > 0),
  };
}
