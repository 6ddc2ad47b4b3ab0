import { AGENT_CARD_PATH } from '@a2a-js/sdk';
import {
  DefaultExecutionEventBusManager,
  DefaultRequestHandler,
  InMemoryTaskStore,
} from '@a2a-js/sdk/server';
import { agentCardHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { A2AService, UserBuilder as GrpcUserBuilder, grpcService } from '@a2a-js/sdk/server/grpc';
import { agentCard, agentInterfaces } from '@a2a-reminders/client';
import type { ReminderStore } from '@a2a-reminders/core';
import {
  createReminderService,
  InMemoryReminderStore,
  TASK_REMINDERS_EXTENSION_URI,
  withTaskReminders,
} from '@a2a-reminders/core';
import { TestAgentExecutor } from '@a2a-reminders/core/test-agent';
import { grpcReminderService, TaskReminderServiceDefinition } from '@a2a-reminders/grpc';
import { jsonRpcFallback, jsonRpcHandlerWithReminders } from '@a2a-reminders/jsonrpc';
import { restFallback, restHandlerWithReminders } from '@a2a-reminders/rest';
import * as grpc from '@grpc/grpc-js';
import express from 'express';
import { bindGrpcOnLoopback, closeHttp, listenOnLoopback } from '../harness/loopback.js';
import type { Defect } from './defects.js';
import {
  alwaysActivatedHttp,
  leakingTurns,
  withoutDedupe,
  withoutReminderEventsOnStreams,
  withTtlOffByOne,
  wrongNotFoundCode,
} from './defects.js';

export interface AgentOptions {
  /** Every request, the card's included, must carry `authorization: Bearer <token>`. */
  readonly token?: string;
}

/** An agent the kit runs against in its own tests: the stock pieces, the test agent, and at most one defect. */
export interface AgentUnderTest extends AsyncDisposable {
  readonly cardUrl: string;
}

/**
 * Starts an agent as a deployment of this project would (the SDK's request
 * handler, the reminder service on all three bindings, the test agent of
 * `@a2a-reminders/core/test-agent`), on loopback ports, with `defect`
 * built in when given.
 */
export async function startAgentUnderTest(
  defect?: Defect,
  options: AgentOptions = {},
): Promise<AgentUnderTest> {
  const taskStore = new InMemoryTaskStore();
  const eventBusManager = new DefaultExecutionEventBusManager();
  let store: ReminderStore = new InMemoryReminderStore();
  if (defect === 'dedupe-not-displacing') store = withoutDedupe(store);
  if (defect === 'ttl-off-by-one') store = withTtlOffByOne(store);
  const reminders = createReminderService({ taskStore, eventBusManager, store });
  const card = withTaskReminders(
    agentCard({
      name: `agent under test${defect === undefined ? '' : ` (${defect})`}`,
      description: 'an agent the conformance kit checks in its own tests',
      version: '0.1.0',
      interfaces: {},
    }),
    reminders,
  );
  const executor = new TestAgentExecutor({
    reminders: defect === 'reminder-text-in-history' ? leakingTurns(reminders) : reminders,
  });
  const stockHandler = new DefaultRequestHandler(
    card,
    defect === 'batches-stored' ? taskStore : reminders.wrapTaskStore(taskStore),
    reminders.wrapExecutor(executor),
    eventBusManager,
  );
  const requestHandler =
    defect === 'events-missing-from-stream'
      ? withoutReminderEventsOnStreams(stockHandler)
      : stockHandler;

  const app = express();
  if (options.token !== undefined) app.use(bearerOnly(options.token));
  if (defect === 'extension-not-required') app.use(alwaysActivatedHttp);
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler }));
  const httpOptions = { requestHandler, userBuilder: UserBuilder.noAuthentication };
  app.use(
    '/a2a/jsonrpc',
    ...(defect === 'error-table-entry' ? [wrongNotFoundCode] : []),
    jsonRpcHandlerWithReminders({ ...httpOptions, reminders }),
    ...jsonRpcFallback(),
  );
  app.use('/a2a/rest', restHandlerWithReminders({ ...httpOptions, reminders }), ...restFallback());
  const { server: http, url: httpUrl } = await listenOnLoopback(app);

  const grpcServer = new grpc.Server(
    options.token === undefined ? {} : { interceptors: [grpcBearerOnly(options.token)] },
  );
  const grpcOptions = { requestHandler, userBuilder: GrpcUserBuilder.noAuthentication };
  grpcServer.addService(A2AService, grpcService(grpcOptions));
  const service = grpcReminderService({ ...grpcOptions, reminders });
  grpcServer.addService(
    TaskReminderServiceDefinition,
    defect === 'extension-not-required' ? alwaysActivatedGrpc(service) : service,
  );
  const port = await bindGrpcOnLoopback(grpcServer);
  card.supportedInterfaces = agentInterfaces({
    jsonrpc: `${httpUrl}/a2a/jsonrpc`,
    rest: `${httpUrl}/a2a/rest`,
    grpc: `127.0.0.1:${port}`,
  });
  return {
    cardUrl: `${httpUrl}/${AGENT_CARD_PATH}`,
    async [Symbol.asyncDispose]() {
      executor.cancelAll();
      grpcServer.forceShutdown();
      await closeHttp(http);
    },
  };
}

/** gRPC: every call is treated as if its metadata activated the extension. */
function alwaysActivatedGrpc(
  service: grpc.UntypedServiceImplementation,
): grpc.UntypedServiceImplementation {
  const wrapped: grpc.UntypedServiceImplementation = {};
  for (const [name, handler] of Object.entries(service)) {
    wrapped[name] = ((
      call: grpc.ServerUnaryCall<unknown, unknown>,
      callback: grpc.sendUnaryData<unknown>,
    ) => {
      if (call.metadata.get('a2a-extensions').length === 0) {
        call.metadata.set('a2a-extensions', TASK_REMINDERS_EXTENSION_URI);
      }
      (handler as grpc.handleUnaryCall<unknown, unknown>)(call, callback);
    }) as grpc.UntypedHandleCall;
  }
  return wrapped;
}

function bearerOnly(token: string): express.RequestHandler {
  return (req, res, next) => {
    if (req.header('authorization') === `Bearer ${token}`) next();
    else res.status(401).json({ error: { message: 'a bearer token is required' } });
  };
}

function grpcBearerOnly(token: string): grpc.ServerInterceptor {
  return (_method, call) =>
    new grpc.ServerInterceptingCall(call, {
      start: (next) =>
        next({
          onReceiveMetadata: (metadata, pass) => {
            if (metadata.get('authorization')[0] === `Bearer ${token}`) pass(metadata);
            else
              call.sendStatus({
                code: grpc.status.UNAUTHENTICATED,
                details: 'a bearer token is required',
              });
          },
        }),
    });
}
