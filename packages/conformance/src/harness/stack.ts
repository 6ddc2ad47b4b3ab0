import type { AgentCard } from '@a2a-js/sdk';
import { AGENT_CARD_PATH } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import type { A2ARequestHandler, AgentExecutor, TaskStore } from '@a2a-js/sdk/server';
import {
  DefaultExecutionEventBusManager,
  DefaultRequestHandler,
  InMemoryTaskStore,
} from '@a2a-js/sdk/server';
import { agentCardHandler } from '@a2a-js/sdk/server/express';
import { A2AService, grpcService } from '@a2a-js/sdk/server/grpc';
import type { AgentConnection, Binding, ProtocolBinding } from '@a2a-reminders/client';
import {
  agentCard,
  agentInterfaces,
  bindingOfProtocol,
  connectToAgent,
} from '@a2a-reminders/client';
import type {
  ReminderChangeSignal,
  ReminderLimits,
  ReminderService,
  ReminderStore,
} from '@a2a-reminders/core';
import {
  BatchFreeTaskStore,
  createReminderService,
  InMemoryReminderStore,
  withTaskReminders,
} from '@a2a-reminders/core';
import { grpcReminderService, TaskReminderServiceDefinition } from '@a2a-reminders/grpc';
import { jsonRpcFallback, jsonRpcHandlerWithReminders } from '@a2a-reminders/jsonrpc';
import { restFallback, restHandlerWithReminders } from '@a2a-reminders/rest';
import * as grpc from '@grpc/grpc-js';
import express from 'express';
import { kitTarget } from './kit-target.js';
import { bindGrpcOnLoopback, closeHttp, listenOnLoopback } from './loopback.js';
import { notObservable } from './not-observable.js';
import { stackStore } from './stack-store.js';
import { ControllableExecutor } from './test-executor.js';
import { expressUserBuilder, grpcUserBuilder } from './users.js';
import { WatchedTaskStore } from './watched-task-store.js';

export type SdkBinding = ProtocolBinding;

export interface StackOptions {
  /** Overrides of the service's limits (R9, R17, R35). */
  readonly limits?: Partial<ReminderLimits>;
  /** Refuse anonymous callers (R5). */
  readonly requireAuthentication?: boolean;
  /** The bindings' request-body limit (W3, W12), gRPC's maxRequestBytes too; the packages' default when unset. */
  readonly maxBodyBytes?: number;
  /** The service's clock (R35). */
  readonly now?: () => Date;
  /** R57's delay of displacement events; the service's default when unset. */
  readonly displacedEventDelayMs?: number;
  /** The executor puts an agent message on every status it publishes (R50). */
  readonly statusMessages?: boolean;
  /** Wraps the suite's reminder store, e.g. in a gate that interleaves transactions (R19). */
  readonly wrapStore?: (store: ReminderStore) => ReminderStore;
  /**
   * A reminder store of the case's own instead of the suite's store
   * parameter, e.g. one on connections the case can break (R69, R70;
   * harness/store-faults.ts). The case finds it as the stack's `reminderStore`.
   */
  readonly reminderStore?: () => Promise<ReminderStore>;
  /**
   * Makes the stack one replica of several on a shared database (R52–R55):
   * opens this stack's own stores and change signal, instead of the suite's
   * store parameter and an in-memory task store.
   */
  readonly replica?: () => Promise<StackReplica>;
}

/** What a replica stack runs on besides the SDK's server pieces (harness/replica-stack.ts). */
export interface StackReplica {
  /** The task store every replica shares (the SDK's DatabaseTaskStore). */
  readonly taskStore: TaskStore;
  readonly store: ReminderStore;
  readonly changeSignal: ReminderChangeSignal;
  /** Wraps the executor outermost, around the reminder service's wrapper (task leases, R53). */
  wrapExecutor(
    executor: AgentExecutor,
    parts: { readonly reminders: ReminderService; readonly taskStore: TaskStore },
  ): AgentExecutor;
  /**
   * Wraps the A2A request handler every binding serves, once the executor
   * is wrapped (R74: follow-ups for a task running on another replica are
   * refused). Absent: the handler as it is.
   */
  wrapRequestHandler?(handler: A2ARequestHandler): A2ARequestHandler;
  /** Called last when the stack closes, once its servers are down and its executions released. */
  close(): Promise<void>;
}

export interface SeenRequest {
  /** The HTTP path or the gRPC method path. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** One agent: the SDK's stock server pieces with the reminder service mounted on every binding. */
export interface Stack {
  readonly card: AgentCard;
  readonly reminders: ReminderService;
  readonly taskStore: WatchedTaskStore;
  readonly eventBusManager: DefaultExecutionEventBusManager;
  readonly executor: ControllableExecutor;
  /** `http://127.0.0.1:<port>`: the express server (agent card, JSON-RPC, REST). */
  readonly httpUrl: string;
  /** Where the card is served (the well-known path). */
  readonly cardUrl: string;
  readonly jsonRpcUrl: string;
  readonly restUrl: string;
  /** `127.0.0.1:<port>`, for grpc-js clients. */
  readonly grpcTarget: string;
  /** `http://127.0.0.1:<port>`, for the Connect gRPC client. */
  readonly grpcBaseUrl: string;
  /** Request headers (lower-cased) of every HTTP request and gRPC call the servers received, in order. */
  readonly seen: SeenRequest[];
  /** The replica's own stores and signal, when the stack is one (StackOptions.replica). */
  readonly replica: StackReplica | undefined;
  /** The case's own reminder store, when it gave one (StackOptions.reminderStore). */
  readonly reminderStore: ReminderStore | undefined;
  /**
   * A stock SDK client (ClientFactory) on `binding`, connected as any client
   * would (@a2a-reminders/client): from the card at the served well-known path.
   */
  sdkClient(binding: SdkBinding): Promise<Client>;
  close(): Promise<void>;
}

function baseCard(): AgentCard {
  return agentCard({
    name: 'conformance agent',
    description: 'a controllable agent for the task-reminders conformance suite',
    version: '0.1.0',
    // Listed once the servers listen; the SDK reads this object by reference at each request.
    interfaces: {},
  });
}

/**
 * Starts the stack every arm shares: DefaultRequestHandler over an
 * InMemoryTaskStore and DefaultExecutionEventBusManager, a controllable
 * executor wrapped by the reminder service, express on 127.0.0.1:0 with the
 * SDK's JSON-RPC and REST handlers with reminders (one middleware each), and
 * a grpc.Server on 127.0.0.1:0 with A2AService and TaskReminderService.
 */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  // As the kit, a case that builds an agent of its own checks that agent, not the one under test.
  if (kitTarget() !== undefined) notObservable('the case builds agents of its own in process');
  const replica = await options.replica?.();
  try {
    return await serve(options, replica);
  } catch (error) {
    await replica?.close();
    throw error;
  }
}

async function serve(options: StackOptions, replica: StackReplica | undefined): Promise<Stack> {
  // R66: the task store as agents mount it, batches kept off the stored task;
  // the watch sits above it and sees each task as the A2A server saved it.
  const taskStore = new WatchedTaskStore(
    new BatchFreeTaskStore(replica?.taskStore ?? new InMemoryTaskStore()),
  );
  const eventBusManager = new DefaultExecutionEventBusManager();
  // The reminder store is the suite's parameter (memory, SQLite, PostgreSQL),
  // a replica's own store on the database the replicas share, or the case's own.
  const own = await options.reminderStore?.();
  const store = own ?? (replica === undefined ? await stackStore() : replica.store);
  const reminders = createReminderService({
    taskStore,
    eventBusManager,
    ...(options.wrapStore === undefined
      ? store === undefined
        ? {}
        : { store }
      : { store: options.wrapStore(store ?? new InMemoryReminderStore()) }),
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    ...(options.requireAuthentication === undefined
      ? {}
      : { requireAuthentication: options.requireAuthentication }),
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.displacedEventDelayMs === undefined
      ? {}
      : { displacedEventDelayMs: options.displacedEventDelayMs }),
    ...(replica === undefined ? {} : { changeSignal: replica.changeSignal }),
  });
  const card = withTaskReminders(baseCard(), reminders);
  const executor = new ControllableExecutor({ statusMessages: options.statusMessages ?? false });
  const wrapped = reminders.wrapExecutor(executor);
  const sdkHandler = new DefaultRequestHandler(
    card,
    taskStore,
    replica?.wrapExecutor(wrapped, { reminders, taskStore }) ?? wrapped,
    eventBusManager,
  );
  const requestHandler = replica?.wrapRequestHandler?.(sdkHandler) ?? sdkHandler;
  const bodyLimit =
    options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes };

  const seen: SeenRequest[] = [];
  const app = express();
  app.use((req, _res, next) => {
    const headers: Record<string, string> = {};
    for (const [key, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers[key] = Array.isArray(value) ? value.join(',') : value;
    }
    seen.push({ path: req.originalUrl, headers });
    next();
  });
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler }));
  const httpOptions = { requestHandler, userBuilder: expressUserBuilder };
  app.use(
    '/a2a/jsonrpc',
    jsonRpcHandlerWithReminders({ ...httpOptions, reminders, ...bodyLimit }),
    ...jsonRpcFallback(),
  );
  app.use(
    '/a2a/rest',
    restHandlerWithReminders({ ...httpOptions, reminders, ...bodyLimit }),
    ...restFallback(),
  );
  const { server: http, url: httpUrl } = await listenOnLoopback(app);

  const grpcServer = new grpc.Server();
  const grpcOptions = {
    requestHandler,
    userBuilder: async (call: Parameters<typeof grpcUserBuilder>[0]) => {
      const headers: Record<string, string> = {};
      for (const [key, value] of Object.entries(call.metadata.getMap()))
        headers[key] = String(value);
      seen.push({ path: call.getPath(), headers });
      return grpcUserBuilder(call);
    },
  };
  grpcServer.addService(A2AService, grpcService(grpcOptions));
  grpcServer.addService(
    TaskReminderServiceDefinition,
    grpcReminderService({
      ...grpcOptions,
      reminders,
      ...(options.maxBodyBytes === undefined ? {} : { maxRequestBytes: options.maxBodyBytes }),
    }),
  );
  let grpcPort: number;
  try {
    grpcPort = await bindGrpcOnLoopback(grpcServer);
  } catch (error) {
    await closeHttp(http);
    throw error;
  }
  const grpcTarget = `127.0.0.1:${grpcPort}`;
  const urls = {
    jsonrpc: `${httpUrl}/a2a/jsonrpc`,
    rest: `${httpUrl}/a2a/rest`,
    grpc: grpcTarget,
  } as const;
  card.supportedInterfaces = agentInterfaces(urls);

  const connections = new Map<Binding, Promise<AgentConnection>>();
  const connect = (binding: Binding): Promise<AgentConnection> => {
    let connection = connections.get(binding);
    if (connection === undefined) {
      connection = connectToAgent(httpUrl, { binding });
      connections.set(binding, connection);
    }
    return connection;
  };

  return {
    card,
    reminders,
    taskStore,
    eventBusManager,
    executor,
    httpUrl,
    cardUrl: `${httpUrl}/${AGENT_CARD_PATH}`,
    jsonRpcUrl: urls.jsonrpc,
    restUrl: urls.rest,
    grpcTarget,
    grpcBaseUrl: `http://${grpcTarget}`,
    seen,
    replica,
    reminderStore: own,
    sdkClient: async (binding) => (await connect(bindingOfProtocol(binding))).client,
    async close() {
      executor.releaseAll();
      for (const pending of connections.values()) {
        (await pending.catch(() => undefined))?.close();
      }
      grpcServer.forceShutdown();
      await closeHttp(http);
      await replica?.close();
    },
  };
}
