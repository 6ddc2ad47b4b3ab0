import { randomUUID } from 'node:crypto';
import type { Server as HttpServer } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { AGENT_CARD_PATH } from '@a2a-js/sdk';
import {
  DefaultExecutionEventBusManager,
  DefaultPushNotificationSender,
  DefaultRequestHandler,
} from '@a2a-js/sdk/server';
import { agentCardHandler, UserBuilder as HttpUserBuilder } from '@a2a-js/sdk/server/express';
import { A2AService, UserBuilder as GrpcUserBuilder, grpcService } from '@a2a-js/sdk/server/grpc';
import type { ReminderService } from '@a2a-reminders/core';
import { createReminderService } from '@a2a-reminders/core';
import { TestAgentExecutor } from '@a2a-reminders/core/test-agent';
import { refuseFollowUpsElsewhere, TaskLeaseKeeper } from '@a2a-reminders/database';
import {
  addReminderReflection,
  grpcReminderService,
  TaskReminderServiceDefinition,
} from '@a2a-reminders/grpc';
import { jsonRpcFallback, jsonRpcHandlerWithReminders } from '@a2a-reminders/jsonrpc';
import { restFallback, restHandlerWithReminders } from '@a2a-reminders/rest';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import * as grpc from '@grpc/grpc-js';
import express from 'express';
import { buildAgentCard, JSONRPC_PATH, REST_PATH } from './agent-card.js';
import type { TestAgent } from './cli-args.js';
import { CodingAgentExecutor } from './coding-agent-executor.js';
import { endInterruptedTasks } from './interrupted-tasks.js';
import { answerUnparsableRequestsWithJson, jsonErrorHandler, jsonNotFound } from './json-errors.js';
import type { TurnPrompt } from './model.js';
import { ScriptedLanguageModel } from './scripted-model.js';
import { routeTestAgent } from './test-agent-routing.js';
import { TestDelegation } from './test-delegation.js';
import { openWorkerStores } from './worker-stores.js';

export interface WorkerOptions {
  /** Interface to listen on; loopback by default. */
  readonly host: string;
  /** HTTP port (JSON-RPC, REST, agent card); 0 picks a free one. */
  readonly port: number;
  /** gRPC port; 0 picks a free one. */
  readonly grpcPort: number;
  /** Most turns per task; `Infinity`: no limit, a task works until cancelled. */
  readonly maxTurns: number;
  /** Pause between turns in ms. */
  readonly turnMs: number;
  /**
   * Where tasks and reminders live: `memory` (the default here), `sqlite:<file>`
   * or `postgres://…`. The CLI defaults to a SQLite file instead.
   */
  readonly store?: string;
  /** Any AI SDK language model; defaults to the offline {@link ScriptedLanguageModel}. */
  readonly model?: LanguageModelV3;
  /** Receives every turn's prompt (`--log-prompts`). */
  readonly onPrompt?: (prompt: TurnPrompt) => void;
  /** PostgreSQL: this replica's name in task leases (default: host, pid and a random suffix). */
  readonly replicaId?: string;
  /** PostgreSQL: how long a task's lease lasts without a heartbeat (R53; default 10 000 ms). */
  readonly leaseMs?: number;
  /** SQLite: how long a call waits for another process's write lock (R69; default 10 000 ms). */
  readonly sqliteBusyMs?: number;
  /** SQLite: `full` syncs every commit (default `normal`). */
  readonly sqliteSync?: 'normal' | 'full';
  /** The agent test steps are delegated to, the task's reminders forwarded (spec §15). */
  readonly delegateTests?: TestAgent;
  /** Most hops a forwarded reminder may carry to be accepted (R60); core's default when absent. */
  readonly maxForwardHops?: number;
  /** The agent card's name (`--name`), to tell agents apart in a chain of them. */
  readonly name?: string;
  /**
   * `--test-agent`: also honour the conformance kit's test-agent contract
   * (docs/conformance-kit.md) for the messages that carry its metadata.
   */
  readonly testAgent?: boolean;
}

export interface RunningWorker {
  /** `http://host:port`; the agent card is at `${httpBaseUrl}/.well-known/agent-card.json`. */
  readonly httpBaseUrl: string;
  readonly agentCardUrl: string;
  /** `host:port` of the gRPC server. */
  readonly grpcAddress: string;
  /** Where tasks and reminders live: `memory` or the database URL (SQLite path absolute). */
  readonly storeLocation: string;
  /** Tasks a previous run left running that this start ended FAILED. */
  readonly interruptedTasks: number;
  /** PostgreSQL: this replica's name in task leases, and the lease length (R53). */
  readonly replica: { readonly id: string; readonly leaseMs: number } | undefined;
  readonly reminders: ReminderService;
  /** Cancels running tasks at their next boundary, then closes both servers. */
  close(): Promise<void>;
}

/**
 * Starts the worker: one SDK `DefaultRequestHandler` served over JSON-RPC,
 * REST and gRPC, each binding with the reminder rpcs mounted beside it and
 * resolving callers exactly as the SDK does (same request handler and user
 * builder; issue 4), plus the agent card.
 */
export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  // Stores first: a crashed run's tasks are ended before anything is served.
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  // R70: a lease statement gets a quarter of the lease, at least 2 s (its
  // deadline half as much again): a dead connection is dropped within about
  // a lease, while a busy machine's slow answer is no failure. Fencing (R71)
  // does not wait for it.
  const stores = await openWorkerStores(options.store ?? 'memory', {
    leaseStatementTimeoutMs: Math.max(2_000, Math.floor(leaseMs / 4)),
    ...(options.sqliteBusyMs === undefined ? {} : { sqliteBusyMs: options.sqliteBusyMs }),
    ...(options.sqliteSync === undefined ? {} : { sqliteSync: options.sqliteSync }),
  });
  const { taskStore } = stores;
  const eventBusManager = new DefaultExecutionEventBusManager();
  const reminders = createReminderService({
    taskStore,
    eventBusManager,
    store: stores.reminderStore,
    ...(options.maxForwardHops === undefined
      ? {}
      : { limits: { maxForwardHops: options.maxForwardHops } }),
    ...(stores.changeSignal === undefined ? {} : { changeSignal: stores.changeSignal }),
  });
  // PostgreSQL: replicas may share the database, so a task whose replica
  // dies is ended by a lease that expires (R53), never by a restart's scan.
  const replica =
    stores.leaseDb !== undefined && stores.changeSignal !== undefined
      ? {
          id: options.replicaId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
          leaseMs,
        }
      : undefined;
  let stopLoops: (taskId: string) => void = () => {};
  const keeper =
    replica === undefined || stores.leaseDb === undefined
      ? undefined
      : new TaskLeaseKeeper({
          db: stores.leaseDb,
          taskStore: stores.reaperTaskStore,
          reminders,
          replicaId: replica.id,
          leaseMs: replica.leaseMs,
          reason: ABANDONED_REASON,
          // R71: the loop of a task this replica no longer owns stops; what it
          // publishes meanwhile is dropped by the keeper.
          onLeaseLost: (key) => stopLoops(key.taskId),
        });
  if (keeper !== undefined) stores.guardedTaskStore?.fenceWith(keeper);
  let interruptedTasks = 0;
  const app = express();
  let httpServer: HttpServer;
  try {
    if (stores.db !== undefined && keeper === undefined) {
      interruptedTasks = await endInterruptedTasks({ db: stores.db, taskStore, reminders });
    }
    httpServer = await listen(app, options.host, options.port);
  } catch (error) {
    await stores.close();
    throw error;
  }
  const grpcServer = new grpc.Server();
  let grpcPort: number;
  try {
    grpcPort = await bindGrpc(grpcServer, `${hostForAddress(options.host)}:${options.grpcPort}`);
  } catch (error) {
    await closeHttp(httpServer);
    await stores.close();
    throw error;
  }
  // The card names the ports actually bound (port 0 allowed), so routes are
  // mounted only once both servers listen; READY is printed after this.
  const httpBaseUrl = `http://${hostForAddress(options.host)}:${(httpServer.address() as AddressInfo).port}`;
  const grpcAddress = `${hostForAddress(options.host)}:${grpcPort}`;

  const agent = new CodingAgentExecutor({
    reminders,
    model: options.model ?? new ScriptedLanguageModel(),
    maxTurns: options.maxTurns,
    turnMs: options.turnMs,
    ...(options.onPrompt ? { onPrompt: options.onPrompt } : {}),
    ...(options.delegateTests === undefined
      ? {}
      : { testDelegation: new TestDelegation(options.delegateTests, reminders) }),
  });
  const card = buildAgentCard({
    httpBaseUrl,
    grpcAddress,
    reminders,
    ...(options.name === undefined ? {} : { name: options.name }),
  });
  const testAgent = options.testAgent ? new TestAgentExecutor({ reminders }) : undefined;
  stopLoops = (taskId) => agent.stop(taskId);
  const executor = reminders.wrapExecutor(
    testAgent === undefined ? agent : routeTestAgent(testAgent, agent),
  );
  // Push notifications (A2A §9): the SDK's store and sender. Reminder events
  // reach a registered webhook as the status updates of R30, best-effort:
  // the sender does not retry, and ListTaskReminders stays the record.
  const sdkHandler = new DefaultRequestHandler(
    card,
    reminders.wrapTaskStore(taskStore),
    keeper?.wrapExecutor(executor) ?? executor,
    eventBusManager,
    stores.pushStore,
    new DefaultPushNotificationSender(stores.pushStore),
  );
  // R74: one agent loop per task across the replicas.
  const requestHandler =
    keeper === undefined ? sdkHandler : refuseFollowUpsElsewhere(sdkHandler, keeper);
  keeper?.start();

  const httpUsers = HttpUserBuilder.noAuthentication;
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler }));
  const httpOptions = { reminders, requestHandler, userBuilder: httpUsers };
  app.use(JSONRPC_PATH, jsonRpcHandlerWithReminders(httpOptions), ...jsonRpcFallback());
  app.use(REST_PATH, restHandlerWithReminders(httpOptions), ...restFallback());
  // W13: every other answer is JSON too, never express's HTML page with a stack and paths.
  app.use(jsonNotFound, jsonErrorHandler);
  const grpcUsers = GrpcUserBuilder.noAuthentication;
  grpcServer.addService(A2AService, grpcService({ requestHandler, userBuilder: grpcUsers }));
  grpcServer.addService(
    TaskReminderServiceDefinition,
    grpcReminderService({ reminders, requestHandler, userBuilder: grpcUsers }),
  );
  // Server reflection: grpcurl, Postman and `buf curl` call the reminder rpcs without proto files.
  addReminderReflection(grpcServer);

  let closing: Promise<void> | undefined;
  return {
    httpBaseUrl,
    agentCardUrl: `${httpBaseUrl}/${AGENT_CARD_PATH}`,
    grpcAddress,
    storeLocation: stores.location,
    interruptedTasks,
    replica,
    reminders,
    close() {
      closing ??= (async () => {
        // R73: every running task ends CANCELED, its reminders' fates and
        // last status stored and its lease released, before the database closes.
        // New connections are refused from here on; open ones stay until
        // the tasks ended: the SDK stores a streamed task's events as its
        // stream is written, so cutting the stream first would leave the
        // task WORKING.
        const serversClosed = Promise.all([closeHttp(httpServer), closeGrpc(grpcServer)]);
        agent.cancelAll();
        testAgent?.cancelAll();
        await agent.idle();
        await testAgent?.idle();
        await keeper?.drain();
        await taskStore.settled();
        httpServer.closeAllConnections();
        grpcServer.forceShutdown();
        await serversClosed;
        await keeper?.close();
        await stores.close();
      })();
      return closing;
    },
  };
}

/** How long a task's lease lasts without a heartbeat, by default (README: replicas). */
export const DEFAULT_LEASE_MS = 10_000;

/** What a task ended because its replica stopped says in its status message (R53). */
export const ABANDONED_REASON =
  'The worker replica running this task stopped (crash, kill or lost database connection) and ' +
  "its lease expired; the task's progress in that process was lost, so another replica ended " +
  'it as FAILED. Send the task again to run it afresh.';

/** IPv6 literals need brackets in URLs and gRPC targets. */
function hostForAddress(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

function listen(app: express.Express, host: string, port: number): Promise<HttpServer> {
  return new Promise((resolve, reject) => {
    const server = createServer(app);
    answerUnparsableRequestsWithJson(server);
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

function bindGrpc(server: grpc.Server, address: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (error, port) => {
      if (error) reject(error);
      else resolve(port);
    });
  });
}

/** Stops accepting connections; resolves once the open ones are gone (the caller cuts them). */
function closeHttp(server: HttpServer): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}

/** Stops accepting calls; resolves once the open ones ended (the caller forces the rest). */
function closeGrpc(server: grpc.Server): Promise<void> {
  return new Promise((resolve) => {
    server.tryShutdown(() => resolve());
  });
}
