import { TaskState } from '@a2a-js/sdk';
import type { AgentExecutor } from '@a2a-js/sdk/server';
import { AgentEvent } from '@a2a-js/sdk/server';

interface Running {
  readonly contextId: string;
  readonly settle: () => void;
}

/**
 * An executor whose tasks stay WORKING until cancelled (README, What it measures: the
 * bus, queue and drain loop stay live, as for a long-running agent). Cancel
 * publishes CANCELED and settles the execution, so the memory phase can end tasks.
 */
export function workingExecutor(): AgentExecutor {
  const running = new Map<string, Running>();
  return {
    execute: async (requestContext, eventBus) => {
      const { taskId, contextId } = requestContext;
      eventBus.publish(
        AgentEvent.task({
          id: taskId,
          contextId,
          status: {
            state: TaskState.TASK_STATE_WORKING,
            message: undefined,
            timestamp: new Date().toISOString(),
          },
          artifacts: [],
          history: [requestContext.userMessage],
          metadata: undefined,
        }),
      );
      await new Promise<void>((settle) => running.set(taskId, { contextId, settle }));
    },
    cancelTask: async (taskId, eventBus) => {
      const run = running.get(taskId);
      if (run === undefined) return;
      running.delete(taskId);
      eventBus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId: run.contextId,
          status: {
            state: TaskState.TASK_STATE_CANCELED,
            message: undefined,
            timestamp: new Date().toISOString(),
          },
          metadata: undefined,
        }),
      );
      run.settle();
    },
  };
}
