import type { RequestListener } from 'node:http';
import type { AgentCard } from '@a2a-js/sdk';
import type { A2ARequestHandler, PushNotificationSender, TaskStore } from '@a2a-js/sdk/server';
import {
  DefaultExecutionEventBusManager,
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
} from '@a2a-js/sdk/server';
import { jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { A2AService, grpcService } from '@a2a-js/sdk/server/grpc';
import type {
  ReminderChangeSignal,
  ReminderLimits,
  ReminderService,
  ReminderStore,
} from '@a2a-reminders/core';
import { createReminderService, withTaskReminders } from '@a2a-reminders/core';
import { grpcReminderService, TaskReminderServiceDefinition } from '@a2a-reminders/grpc';
import { jsonRpcHandlerWithReminders } from '@a2a-reminders/jsonrpc';
import { restHandlerWithReminders } from '@a2a-reminders/rest';
import * as grpc from '@grpc/grpc-js';
import type { Express, RequestHandler } from 'express';
import express from 'express';
import {
  adminDropStoredBatches,
  adminEndPlainReminders,
  adminFollowUps,
  adminPublishDelayed,
  adminStats,
  adminTasks,
} from './admin-route.js';
import { benchAgentCard } from './bench-card.js';
import { FollowUpPool } from './follow-up-pool.js';
import { expressNoop, grpcNoopDefinition, grpcNoopImplementation } from './noop-routes.js';
import { dispatchByPath } from './path-dispatch.js';
import { HTTP_PATHS } from './wire.js';
import { type WorkingExecutor, workingExecutor } from './working-executor.js';

export interface BenchStack {
  /** The no-op and admin routes, and any route of the caller's (none under the A2A paths: those go to their own apps). */
  readonly app: Express;
  /** What the HTTP server serves: one express app per A2A path, and `app` for the rest (path-dispatch.ts). */
  readonly listener: RequestListener;
  readonly grpcServer: grpc.Server;
  readonly requestHandler: A2ARequestHandler;
  readonly taskStore: TaskStore;
  readonly reminders: ReminderService;
  /** The agent's executor, unwrapped: its running tasks, for turn boundaries (plain-reminder-turns.ts). */
  readonly executor: WorkingExecutor;
  /** Ids of the seeded tasks, for the load process (filled by the caller). */
  readonly seededTaskIds: string[];
  /** The SendMessage workaround arms' own tasks (empty until renewed). */
  readonly followUpPool: FollowUpPool;
}

/**
 * What a replica shares with the others on one database (README, Replicas):
 * the SDK's task store, so every replica answers for every task (R55), and
 * the change signal, so events committed elsewhere reach this replica's
 * streams (R52).
 */
export interface BenchReplicaWiring {
  readonly taskStore: TaskStore;
  readonly changeSignal: ReminderChangeSignal;
}

/**
 * The server of README, What it measures: one DefaultRequestHandler, the reminder
 * extension mounted as the binding READMEs show, the stock SDK routers mounted
 * a second time without it on the same handler (the goals.3), each path on an
 * express app of its own (path-dispatch.ts), and no-op ceilings.
 */
export function createBenchStack(
  limits: Partial<ReminderLimits>,
  store?: ReminderStore,
  replica?: BenchReplicaWiring,
  followUpPoolSize = 1000,
  displacedEventDelayMs?: number,
): BenchStack {
  const taskStore = replica?.taskStore ?? new InMemoryTaskStore();
  const eventBusManager = new DefaultExecutionEventBusManager();
  const reminders = createReminderService({
    taskStore,
    eventBusManager,
    limits,
    ...(store === undefined ? {} : { store }),
    ...(replica === undefined ? {} : { changeSignal: replica.changeSignal }),
    ...(displacedEventDelayMs === undefined ? {} : { displacedEventDelayMs }),
  });
  const executor = workingExecutor();
  const requestHandler = new DefaultRequestHandler(
    withTaskReminders(withPushNotifications(benchAgentCard()), reminders),
    reminders.wrapTaskStore(taskStore),
    reminders.wrapExecutor(executor),
    eventBusManager,
    new InMemoryPushNotificationStore(),
    silentPushSender,
  );
  const options = { requestHandler, userBuilder: UserBuilder.noAuthentication };
  const seededTaskIds: string[] = [];
  const followUpPool = new FollowUpPool(requestHandler, taskStore, executor, followUpPoolSize);
  const followUps = adminFollowUps(followUpPool);

  const appOf = (path: string, ...handlers: RequestHandler[]): [string, Express] => {
    const app = express();
    app.use(path, ...handlers);
    return [path, app];
  };
  const byPath = new Map<string, RequestListener>([
    appOf(HTTP_PATHS.jsonrpc, jsonRpcHandlerWithReminders({ ...options, reminders })),
    appOf(HTTP_PATHS.jsonrpcStock, jsonRpcHandler(options)),
    appOf(HTTP_PATHS.rest, restHandlerWithReminders({ ...options, reminders })),
    appOf(HTTP_PATHS.restStock, restHandler(options)),
  ]);
  const app = express();
  app.post(HTTP_PATHS.noop, express.json(), expressNoop);
  app.get('/admin/stats', adminStats);
  app.get('/admin/tasks', adminTasks(seededTaskIds));
  app.post(
    '/admin/end-plain-reminders',
    adminEndPlainReminders(seededTaskIds, executor, reminders),
  );
  app.post('/admin/drop-stored-batches', express.json(), adminDropStoredBatches(taskStore));
  app.post('/admin/publish-delayed', adminPublishDelayed(reminders));
  app.get('/admin/followup-tasks', followUps.list);
  app.post('/admin/followup-tasks', followUps.renew);
  app.delete('/admin/followup-tasks', followUps.retire);
  app.get('/admin/followup-history', followUps.history);

  const grpcServer = new grpc.Server();
  grpcServer.addService(A2AService, grpcService(options));
  grpcServer.addService(
    TaskReminderServiceDefinition,
    grpcReminderService({ ...options, reminders }),
  );
  grpcServer.addService(grpcNoopDefinition, grpcNoopImplementation);

  return {
    app,
    listener: dispatchByPath(byPath, app),
    grpcServer,
    requestHandler,
    taskStore,
    reminders,
    executor,
    seededTaskIds,
    followUpPool,
  };
}

/**
 * The SDK-write anchor arms (push-config-request.ts) store push notification
 * configs, which the SDK accepts only from an agent whose card has push
 * notifications on.
 */
function withPushNotifications(card: AgentCard): AgentCard {
  const capabilities = card.capabilities ?? { extensions: [] };
  return { ...card, capabilities: { ...capabilities, pushNotifications: true } };
}

/**
 * Sends nothing: the anchor's configs point at no receiver. Every event pays
 * one call of it, whatever arm caused the event.
 */
const silentPushSender: PushNotificationSender = {
  send: async () => {},
};
