import { SendMessageRequest, Task } from '@a2a-js/sdk';
import type {
  AgentExecutionEvent,
  ExecutionEventBus,
  ExecutionEventBusManager,
  TaskStore,
} from '@a2a-js/sdk/server';
import { RequestContext, ServerCallContext } from '@a2a-js/sdk/server';
import { reminderEventsOf, TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import type { TaskReminderEvent } from '@a2a-reminders/proto';

/** An anonymous caller at A2A 1.0 that activates the reminders extension (R3). */
export function activatedContext(): ServerCallContext {
  return new ServerCallContext({
    requestedExtensions: [TASK_REMINDERS_EXTENSION_URI],
    requestedVersion: '1.0',
  });
}

/** What {@link workingTask} gives: an execution's view of its running task. */
export interface WorkingTask {
  readonly task: Task;
  readonly bus: ExecutionEventBus;
  /** Every event published on the bus, in order. */
  readonly events: AgentExecutionEvent[];
  readonly requestContext: RequestContext;
  /** The reminder events published on the task's bus, batch by batch. */
  batches(): TaskReminderEvent[][];
}

/**
 * A WORKING task saved in `taskStore` as `context` sees it, its bus from
 * `eventBusManager` with every event published on it recorded, and the
 * request context of its execution: what an executor holds mid-execution.
 */
export async function workingTask(options: {
  readonly taskStore: TaskStore;
  readonly eventBusManager: ExecutionEventBusManager;
  readonly taskId: string;
  readonly context: ServerCallContext;
}): Promise<WorkingTask> {
  const { taskStore, eventBusManager, taskId, context } = options;
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
    task,
    bus,
    events,
    requestContext,
    batches: () => events.map((e) => reminderEventsOf(e)).filter((b) => b.length > 0),
  };
}
