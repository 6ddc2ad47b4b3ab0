import { TaskState } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { AgentEvent } from '@a2a-js/sdk/server';

/** A task's first execution as the executor holds it: what a turn boundary needs. */
export interface RunningTask {
  readonly requestContext: RequestContext;
  /** The bus that execution publishes on (the reminder service's wrapping bus). */
  readonly bus: ExecutionEventBus;
}

interface Running extends RunningTask {
  readonly settle: () => void;
}

export interface WorkingExecutor extends AgentExecutor {
  /** The running first execution of a task, for turn boundaries run by the bench (R19). */
  running(taskId: string): RunningTask | undefined;
  /**
   * Lets the task's first execution return, publishing nothing: for tasks no
   * request addresses any more (follow-up-pool.ts), whose bus a follow-up
   * already ended, so the execution holds no memory. The task stays as stored.
   */
  release(taskId: string): void;
}

/**
 * An executor whose tasks stay WORKING until cancelled (README, What it measures: the
 * bus, queue and drain loop stay live, as for a long-running agent). Cancel
 * publishes CANCELED and settles the execution, so the memory phase can end tasks.
 *
 * A follow-up message on a running task (the SendMessage workaround arms) is
 * acknowledged and returns: the agent announces the task as stored, the
 * follow-up already in its history (the SDK requires a task or message event
 * first; a task, as apps/worker's executor publishes, since the follow-up
 * addresses that task), and leaves the reminder text for its next turn to
 * read from the history. It does not wait for the task to end, as
 * apps/worker's does: every follow-up would then leave an execution and an
 * event queue on the task's bus for good. Returning while the task is WORKING
 * makes the SDK finish and remove the task's bus (DefaultRequestHandler
 * _settleBus), which is why those arms have tasks of their own.
 */
export function workingExecutor(): WorkingExecutor {
  const running = new Map<string, Running>();
  return {
    running: (taskId) => running.get(taskId),
    release: (taskId) => {
      running.get(taskId)?.settle();
      running.delete(taskId);
    },
    execute: async (requestContext, eventBus) => {
      const { taskId, contextId } = requestContext;
      if (running.has(taskId) && requestContext.task !== undefined) {
        eventBus.publish(AgentEvent.task(requestContext.task));
        return;
      }
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
      await new Promise<void>((settle) =>
        running.set(taskId, { requestContext, bus: eventBus, settle }),
      );
    },
    cancelTask: async (taskId, eventBus) => {
      const run = running.get(taskId);
      if (run === undefined) return;
      running.delete(taskId);
      eventBus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId: run.requestContext.contextId,
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
