import type { AgentCard, AgentExtension, Task } from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import type { AgentExecutor, ServerCallContextBuilder, User } from '@a2a-js/sdk/server';
import {
  DefaultExecutionEventBusManager,
  DefaultRequestHandler,
  InMemoryTaskStore,
  ServerCallContext,
  UnauthenticatedUser,
} from '@a2a-js/sdk/server';
import type { UserBuilder } from '@a2a-js/sdk/server/grpc';
import { A2AService, grpcService } from '@a2a-js/sdk/server/grpc';
import type { ReminderRpcHandler } from '@a2a-reminders/core';
import { agentCard } from '@a2a-reminders/core';
import * as grpc from '@grpc/grpc-js';
import {
  addReminderReflection,
  grpcReminderService,
  TaskReminderServiceDefinition,
} from '../index.js';

export interface ReminderDeps {
  readonly taskStore: InMemoryTaskStore;
  readonly eventBusManager: DefaultExecutionEventBusManager;
}

export interface TestServerOptions {
  /** Builds the reminder rpcs from the SDK stores the server uses. */
  readonly reminders: (deps: ReminderDeps) => ReminderRpcHandler;
  readonly userBuilder?: UserBuilder;
  readonly contextBuilder?: ServerCallContextBuilder;
  /** Extensions the card lists. */
  readonly extensions?: AgentExtension[];
  /** The service's request limit, when a test needs a small one. */
  readonly maxRequestBytes?: number;
  /** Serves gRPC server reflection too (`addReminderReflection`). */
  readonly reflection?: boolean;
}

export interface TestServer extends ReminderDeps {
  /** `127.0.0.1:<port>`, for grpc-js and Python clients. */
  readonly target: string;
  /** `http://127.0.0.1:<port>`, for the Connect client. */
  readonly baseUrl: string;
  readonly reminders: ReminderRpcHandler;
  /** Stores a task as if an executor had created it for `user` (default: unauthenticated). */
  seedTask(id: string, state: TaskState, user?: User): Promise<Task>;
  close(): Promise<void>;
}

/** A caller named by `authorization: Bearer <name>`; unauthenticated without it. */
export const bearerUserBuilder: UserBuilder = async (call) => {
  const value = call.metadata.get('authorization')[0]?.toString() ?? '';
  const name = /^Bearer (\S+)$/.exec(value)?.[1];
  if (name === undefined) return new UnauthenticatedUser();
  return { isAuthenticated: true, userName: name };
};

const idleExecutor: AgentExecutor = {
  execute: async () => {},
  cancelTask: async () => {},
};

export function testAgentCard(extensions: AgentExtension[] = []): AgentCard {
  return agentCard({
    name: 'reminders test agent',
    description: 'serves A2A and TaskReminderService on one grpc.Server',
    version: '0.0.0',
    interfaces: { grpc: '127.0.0.1:0' },
    capabilities: { streaming: true, pushNotifications: false, extensions },
  });
}

/**
 * One grpc.Server on 127.0.0.1:0 with the SDK's A2AService and our
 * TaskReminderService, sharing one request handler, user builder and stores.
 */
export async function startTestServer(options: TestServerOptions): Promise<TestServer> {
  const taskStore = new InMemoryTaskStore();
  const eventBusManager = new DefaultExecutionEventBusManager();
  const requestHandler = new DefaultRequestHandler(
    testAgentCard(options.extensions),
    taskStore,
    idleExecutor,
    eventBusManager,
  );
  const reminders = options.reminders({ taskStore, eventBusManager });
  const userBuilder = options.userBuilder ?? bearerUserBuilder;
  const shared = {
    requestHandler,
    userBuilder,
    ...(options.contextBuilder ? { contextBuilder: options.contextBuilder } : {}),
  };

  const server = new grpc.Server();
  server.addService(A2AService, grpcService(shared));
  server.addService(
    TaskReminderServiceDefinition,
    grpcReminderService({
      ...shared,
      reminders,
      ...(options.maxRequestBytes === undefined
        ? {}
        : { maxRequestBytes: options.maxRequestBytes }),
    }),
  );
  if (options.reflection === true) addReminderReflection(server);
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    );
  });

  return {
    taskStore,
    eventBusManager,
    reminders,
    target: `127.0.0.1:${port}`,
    baseUrl: `http://127.0.0.1:${port}`,
    async seedTask(id, state, user = new UnauthenticatedUser()) {
      const task: Task = {
        id,
        contextId: `ctx-${id}`,
        status: { state, message: undefined, timestamp: new Date().toISOString() },
        artifacts: [],
        history: [],
        metadata: undefined,
      };
      await taskStore.save(task, new ServerCallContext({ user }));
      return task;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.forceShutdown();
        resolve();
      }),
  };
}

export { TaskState };
