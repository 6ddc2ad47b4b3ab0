import { DefaultExecutionEventBusManager, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { createReminderService } from '@a2a-reminders/core';
import {
  InjectTaskReminderRequestSchema,
  ListTaskRemindersRequestSchema,
  type TaskReminderSchema,
} from '@a2a-reminders/proto';
import { activatedContext, workingTask } from '@a2a-reminders/test-support';
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
  const context = activatedContext();
  const { requestContext, bus, batches } = await workingTask({
    taskStore,
    eventBusManager,
    taskId,
    context,
  });
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
    batches,
  };
}
