import type {
  AgentCard,
  Message,
  SendMessageRequest,
  Task,
  TaskState,
  TaskStatus,
} from '@a2a-js/sdk';
import { Role } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { AgentEvent, DefaultRequestHandler } from '@a2a-js/sdk/server';
import { vi } from 'vitest';
import { textMessage } from '../text-message.js';
import type { Harness } from './harness.js';
import { caller } from './harness.js';

/** One execution of the scripted executor: what it was given, and how to let it return. */
export interface ScriptedExecution {
  readonly rc: RequestContext;
  /** The bus the wrapped executor publishes on. */
  readonly bus: ExecutionEventBus;
  finish(): void;
  /** Lets the execution throw `error` (the SDK then publishes its own FAILED events). */
  fail(error: Error): void;
}

/**
 * The SDK's stock request handler (its ResultManager stores what executors
 * publish) running an executor through the service's wrapper. Each execution
 * calls `opening` to publish its first events, then waits until the case
 * finishes it (or returns at once when `opening` returns 'return').
 */
export function stockAgent(
  h: Harness,
  opening: (rc: RequestContext, bus: ExecutionEventBus) => 'return' | 'wait',
) {
  const executions: ScriptedExecution[] = [];
  const executor: AgentExecutor = {
    execute: async (rc, bus) => {
      let finish: () => void = () => {};
      let fail: (error: Error) => void = () => {};
      const finished = new Promise<void>((resolve, reject) => {
        finish = resolve;
        fail = reject;
      });
      executions.push({ rc, bus, finish, fail });
      if (opening(rc, bus) === 'wait') await finished;
    },
    cancelTask: async () => {},
  };
  const handler = new DefaultRequestHandler(
    cardOf(h),
    h.taskStore,
    h.service.wrapExecutor(executor),
    h.busManager,
  );

  return {
    handler,
    executions,
    /** The latest execution of the agent. */
    current(): ScriptedExecution {
      const last = executions.at(-1);
      if (last === undefined) throw new Error('no execution yet');
      return last;
    },
    /** A stock SendMessage (returnImmediately), new task or follow-up; the task's id. */
    async send(text: string, taskId = ''): Promise<string> {
      const result = await handler.sendMessage(sendRequest(text, taskId), caller());
      if (!('status' in result)) throw new Error('expected a task');
      return result.id;
    },
    /** The stored task once `done` holds for it (the SDK stores events asynchronously). */
    stored(taskId: string, done: (task: Task) => boolean): Promise<Task> {
      return vi.waitFor(
        async () => {
          const task = await h.taskStore.load(taskId, caller());
          if (task === undefined || !done(task)) throw new Error(`task ${taskId} not stored yet`);
          return task;
        },
        { timeout: 60_000, interval: 2 },
      );
    },
  };
}

/** A status with an agent message, as an agent publishes it. */
export function agentStatus(rc: RequestContext, state: TaskState, text: string): TaskStatus {
  return { state, message: agentMessage(rc, text), timestamp: new Date().toISOString() };
}

export function agentMessage(rc: RequestContext, text: string): Message {
  return textMessage(Role.ROLE_AGENT, rc, text);
}

export function publishStatus(bus: ExecutionEventBus, rc: RequestContext, status: TaskStatus) {
  bus.publish(
    AgentEvent.statusUpdate({
      taskId: rc.taskId,
      contextId: rc.contextId,
      status,
      metadata: undefined,
    }),
  );
}

/** A task event with `status`, keeping the history the execution was given. */
export function publishTask(bus: ExecutionEventBus, rc: RequestContext, status: TaskStatus) {
  bus.publish(
    AgentEvent.task({
      id: rc.taskId,
      contextId: rc.contextId,
      status,
      artifacts: [],
      history: rc.task?.history ?? [],
      metadata: undefined,
    }),
  );
}

/** A minimal agent card advertising the harness's reminder extension, for the SDK's handler. */
export function cardOf(h: Harness): AgentCard {
  return {
    name: 'a',
    description: 'd',
    supportedInterfaces: [],
    version: '1',
    capabilities: { streaming: true, extensions: [h.service.agentExtension()] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text'],
    defaultOutputModes: ['text'],
    skills: [],
    signatures: [],
  } as unknown as AgentCard;
}

/** A SendMessage request with one user text, returning at once; `taskId` '' opens a new task. */
export function sendRequest(text: string, taskId = ''): SendMessageRequest {
  return {
    tenant: '',
    message: textMessage(Role.ROLE_USER, { taskId, contextId: '' }, text),
    configuration: {
      acceptedOutputModes: [],
      taskPushNotificationConfig: undefined,
      returnImmediately: true,
    },
    metadata: undefined,
  };
}
