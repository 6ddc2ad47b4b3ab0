import type { AddressInfo } from 'node:net';
import type { AgentCard, Task, TaskState } from '@a2a-js/sdk';
import type { AgentExecutor, ServerCallContext, User } from '@a2a-js/sdk/server';
import {
  ServerCallContext as Context,
  DefaultExecutionEventBusManager,
  DefaultRequestHandler,
  InMemoryTaskStore,
} from '@a2a-js/sdk/server';
import type { ReminderRpcHandler } from '@a2a-reminders/core';
import { ReminderError } from '@a2a-reminders/core';
import type {
  CancelTaskReminderRequest,
  InjectTaskReminderRequest,
  ListTaskRemindersRequest,
} from '@a2a-reminders/proto';
import {
  CancelTaskReminderResponseSchema,
  InjectTaskReminderResponseSchema,
  ListTaskRemindersResponseSchema,
  ReminderState,
} from '@a2a-reminders/proto';
import { create } from '@bufbuild/protobuf';
import type { Express, Request } from 'express';

/** An agent card declaring A2A 1.0 on the JSON-RPC and HTTP+JSON bindings. */
export function testAgentCard(): AgentCard {
  return {
    name: 'test agent',
    description: 'answers tests',
    version: '1.0.0',
    provider: undefined,
    supportedInterfaces: [
      {
        url: 'http://127.0.0.1/a2a/jsonrpc',
        protocolBinding: 'JSONRPC',
        tenant: '',
        protocolVersion: '1.0',
      },
      {
        url: 'http://127.0.0.1/a2a/rest',
        protocolBinding: 'HTTP+JSON',
        tenant: '',
        protocolVersion: '1.0',
      },
    ],
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
    signatures: [],
  };
}

/** An executor that never runs in these tests (tasks are saved straight into the store). */
const idleExecutor: AgentExecutor = {
  execute: async () => {},
  cancelTask: async () => {},
};

/** The SDK's stock server pieces, as an application would build them. */
export function createSdkStack() {
  const taskStore = new InMemoryTaskStore();
  const eventBusManager = new DefaultExecutionEventBusManager();
  const requestHandler = new DefaultRequestHandler(
    testAgentCard(),
    taskStore,
    idleExecutor,
    eventBusManager,
  );
  return { taskStore, eventBusManager, requestHandler };
}

/** A user named by the `x-user` header, authenticated when present. */
export async function headerUserBuilder(req: Request): Promise<User> {
  const name = req.header('x-user') ?? '';
  return { isAuthenticated: name !== '', userName: name };
}

/** Saves a task as `user` in `tenant` would see it, the way the SDK scopes stores. */
export async function saveTask(
  taskStore: InMemoryTaskStore,
  options: { id: string; state: TaskState; user?: string; tenant?: string },
): Promise<Task> {
  const task: Task = {
    id: options.id,
    contextId: `ctx-${options.id}`,
    status: { state: options.state, message: undefined, timestamp: new Date().toISOString() },
    artifacts: [],
    history: [],
    metadata: undefined,
  };
  const name = options.user ?? '';
  const context = new Context({
    user: { isAuthenticated: name !== '', userName: name },
    ...(options.tenant === undefined ? {} : { tenant: options.tenant }),
  });
  await taskStore.save(task, context);
  return task;
}

/** Listens on 127.0.0.1 port 0; `close` ends open connections too. */
export async function listen(app: Express): Promise<{ url: string; close: () => Promise<void> }> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

export interface RecordedCall {
  readonly method: string;
  readonly request:
    | InjectTaskReminderRequest
    | ListTaskRemindersRequest
    | CancelTaskReminderRequest;
  readonly tenant: string | undefined;
  readonly userName: string | undefined;
  readonly requestedExtensions: readonly string[];
}

/**
 * A ReminderRpcHandler that records each call and answers with a fixed
 * record, or throws `fail` when set; it activates the extension like core.
 */
export function fakeReminders(extensionUri: string) {
  const calls: RecordedCall[] = [];
  const state: { fail: unknown } = { fail: undefined };
  const record = (
    method: string,
    request: RecordedCall['request'],
    context: ServerCallContext,
  ): void => {
    calls.push({
      method,
      request,
      tenant: context.tenant,
      userName: context.user?.userName,
      requestedExtensions: [...(context.requestedExtensions ?? [])],
    });
    context.addActivatedExtension(extensionUri);
    if (state.fail !== undefined) throw state.fail;
  };
  const handler: ReminderRpcHandler = {
    async injectTaskReminder(request, context) {
      record('injectTaskReminder', request, context);
      return create(InjectTaskReminderResponseSchema, {
        record: {
          taskId: request.taskId,
          state: ReminderState.PENDING,
          ...(request.reminder === undefined ? {} : { reminder: request.reminder }),
        },
        taskState: 'TASK_STATE_WORKING',
      });
    },
    async listTaskReminders(request, context) {
      record('listTaskReminders', request, context);
      return create(ListTaskRemindersResponseSchema, {
        reminders: [{ taskId: request.taskId, state: ReminderState.ACTIVE }],
      });
    },
    async cancelTaskReminder(request, context) {
      record('cancelTaskReminder', request, context);
      return create(CancelTaskReminderResponseSchema, {
        record: { taskId: request.taskId, state: ReminderState.CANCELLED },
      });
    },
  };
  return { handler, calls, state };
}

/** One ReminderError per code, with metadata and (where meaningful) field violations. */
export function sampleError(code: ReminderError['code']): ReminderError {
  const fieldViolations =
    code === 'INVALID_ARGUMENT' || code === 'REMINDER_ID_CONFLICT'
      ? [{ field: 'reminder.ttlTurns', description: 'must be between 1 and 20' }]
      : [];
  return new ReminderError(code, `sample ${code}`, {
    metadata: { taskId: 'task-1' },
    fieldViolations,
  });
}
