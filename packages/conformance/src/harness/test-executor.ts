import type { Task, TaskState } from '@a2a-js/sdk';
import { TaskState as State } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { AgentEvent } from '@a2a-js/sdk/server';
import type { Deferred } from './wait.js';
import { deferred } from './wait.js';

/** One running execution of a task, as the worker's runtime holds it. */
export interface Execution {
  readonly requestContext: RequestContext;
  /** The bus the (wrapped) executor was given: turns and status changes go here. */
  readonly bus: ExecutionEventBus;
  readonly done: Deferred<void>;
}

/**
 * An AgentExecutor whose tasks stay WORKING until the case drives them:
 * each execution publishes its task in WORKING and then waits; the case takes
 * turns (`reminders.beginTurn`) and publishes status changes on its bus.
 */
export class ControllableExecutor implements AgentExecutor {
  private readonly executions = new Map<string, Execution>();

  execution(taskId: string): Execution {
    const execution = this.executions.get(taskId);
    if (execution === undefined) throw new Error(`no running execution for task ${taskId}`);
    return execution;
  }

  async execute(requestContext: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const execution: Execution = { requestContext, bus, done: deferred() };
    this.executions.set(requestContext.taskId, execution);
    bus.publish(AgentEvent.task(workingTask(requestContext)));
    await execution.done.promise;
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    const execution = this.executions.get(taskId);
    publishState(bus, taskId, execution?.requestContext.contextId ?? '', State.TASK_STATE_CANCELED);
    execution?.done.resolve();
  }

  /** Publishes a status change of the task on its execution's bus; ends the execution when asked. */
  setState(taskId: string, state: TaskState, endExecution: boolean): void {
    const execution = this.execution(taskId);
    publishState(execution.bus, taskId, execution.requestContext.contextId, state);
    if (endExecution) execution.done.resolve();
  }

  /** Lets every pending execution return, so no executor promise outlives the stack. */
  releaseAll(): void {
    for (const execution of this.executions.values()) execution.done.resolve();
  }
}

function workingTask(requestContext: RequestContext): Task {
  const status = {
    state: State.TASK_STATE_WORKING,
    message: undefined,
    timestamp: new Date().toISOString(),
  };
  const existing = requestContext.task;
  if (existing !== undefined) return { ...existing, status };
  return {
    id: requestContext.taskId,
    contextId: requestContext.contextId,
    status,
    artifacts: [],
    history: [requestContext.userMessage],
    metadata: undefined,
  };
}

function publishState(
  bus: ExecutionEventBus,
  taskId: string,
  contextId: string,
  state: TaskState,
): void {
  bus.publish(
    AgentEvent.statusUpdate({
      taskId,
      contextId,
      status: { state, message: undefined, timestamp: new Date().toISOString() },
      metadata: undefined,
    }),
  );
}
