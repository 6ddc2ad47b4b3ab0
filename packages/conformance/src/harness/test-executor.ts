import type { Message, Task, TaskState, TaskStatus } from '@a2a-js/sdk';
import { Role, TaskState as State } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { AgentEvent } from '@a2a-js/sdk/server';
import { textMessage, textPart } from '@a2a-reminders/core';
import type { Deferred } from './wait.js';
import { deferred } from './wait.js';

/** One running execution of a task, as the worker's runtime holds it. */
export interface Execution {
  readonly requestContext: RequestContext;
  /** The bus the (wrapped) executor was given: turns and status changes go here. */
  readonly bus: ExecutionEventBus;
  readonly done: Deferred<void>;
}

export interface ExecutorOptions {
  /**
   * Every status the executor publishes carries an agent message (R50): the
   * opening task event's status (a message the SDK does not put in history)
   * and each status update's (which the SDK appends to history).
   */
  readonly statusMessages?: boolean;
}

/**
 * An AgentExecutor whose tasks stay WORKING until the case drives them:
 * each execution publishes its task in WORKING and then waits; the case takes
 * turns (`reminders.beginTurn`) and publishes status changes on its bus.
 */
export class ControllableExecutor implements AgentExecutor {
  private readonly executions = new Map<string, Execution>();
  /** Executions that have not returned yet. */
  private readonly running = new Set<Execution>();
  /** The last status the executor published for each task (R50: what GetTask must show). */
  private readonly statuses = new Map<string, TaskStatus>();
  private barriers = 0;

  constructor(private readonly options: ExecutorOptions = {}) {}

  execution(taskId: string): Execution {
    const execution = this.executions.get(taskId);
    if (execution === undefined) throw new Error(`no running execution for task ${taskId}`);
    return execution;
  }

  /** The status the executor last published for the task, verbatim. */
  lastStatus(taskId: string): TaskStatus | undefined {
    return this.statuses.get(taskId);
  }

  async execute(requestContext: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const execution: Execution = { requestContext, bus, done: deferred() };
    this.executions.set(requestContext.taskId, execution);
    const task = workingTask(
      requestContext,
      this.messageFor(requestContext, State.TASK_STATE_WORKING),
    );
    if (task.status !== undefined) this.statuses.set(task.id, task.status);
    this.running.add(execution);
    try {
      bus.publish(AgentEvent.task(task));
      await execution.done.promise;
    } finally {
      this.running.delete(execution);
    }
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    const execution = this.executions.get(taskId);
    const contextId = execution?.requestContext.contextId ?? '';
    this.publishState(bus, taskId, contextId, State.TASK_STATE_CANCELED);
    execution?.done.resolve();
  }

  /** Publishes a status change of the task on its execution's bus; ends the execution when asked. */
  setState(taskId: string, state: TaskState, endExecution: boolean): void {
    const execution = this.execution(taskId);
    this.publishState(execution.bus, taskId, execution.requestContext.contextId, state);
    if (endExecution) execution.done.resolve();
  }

  /**
   * Publishes an artifact update on the task's bus and returns its id. The
   * SDK stores and streams a bus's events in order, so once the artifact is
   * stored (or streamed) every event published before it is too: a case can
   * then check that something did NOT happen.
   */
  barrier(taskId: string): string {
    const execution = this.execution(taskId);
    this.barriers += 1;
    const artifactId = `barrier-${this.barriers}`;
    execution.bus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId: execution.requestContext.contextId,
        artifact: {
          artifactId,
          name: 'barrier',
          description: '',
          parts: [textPart('barrier')],
          metadata: undefined,
          extensions: [],
        },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
    return artifactId;
  }

  /**
   * Cancels every execution still running, as a worker stopping cleanly
   * does (R73): each publishes CANCELED on its bus and returns.
   */
  cancelAll(): void {
    for (const execution of [...this.running]) {
      const { taskId, contextId } = execution.requestContext;
      this.publishState(execution.bus, taskId, contextId, State.TASK_STATE_CANCELED);
      execution.done.resolve();
    }
  }

  /** Lets every pending execution return, so no executor promise outlives the stack. */
  releaseAll(): void {
    for (const execution of this.executions.values()) execution.done.resolve();
  }

  private publishState(
    bus: ExecutionEventBus,
    taskId: string,
    contextId: string,
    state: TaskState,
  ): void {
    const status: TaskStatus = {
      state,
      message: this.options.statusMessages ? agentMessage(taskId, contextId, state) : undefined,
      timestamp: new Date().toISOString(),
    };
    this.statuses.set(taskId, status);
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status, metadata: undefined }));
  }

  private messageFor(requestContext: RequestContext, state: TaskState): Message | undefined {
    if (!this.options.statusMessages) return undefined;
    return agentMessage(requestContext.taskId, requestContext.contextId, state);
  }
}

function workingTask(requestContext: RequestContext, message: Message | undefined): Task {
  const status = {
    state: State.TASK_STATE_WORKING,
    message,
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

/** What an agent says in a state: the same text for every task, so tasks compare by text. */
export function statusText(state: TaskState): string {
  switch (state) {
    case State.TASK_STATE_INPUT_REQUIRED:
      return 'Which branch should I use?';
    case State.TASK_STATE_AUTH_REQUIRED:
      return 'Sign in at https://auth.example/device with code ABCD-1234.';
    default:
      return `${State[state] ?? state}: status from the agent`;
  }
}

function agentMessage(taskId: string, contextId: string, state: TaskState): Message {
  return textMessage(Role.ROLE_AGENT, { taskId, contextId }, statusText(state));
}
