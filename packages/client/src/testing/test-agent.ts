import type { AgentCard, AgentInterface } from '@a2a-js/sdk';
import { AGENT_CARD_PATH } from '@a2a-js/sdk';
import type { InMemoryTaskStore, User } from '@a2a-js/sdk/server';
import { UnauthenticatedUser } from '@a2a-js/sdk/server';
import type { UserBuilder as ExpressUserBuilder } from '@a2a-js/sdk/server/express';
import { agentCardHandler } from '@a2a-js/sdk/server/express';
import type { UserBuilder as GrpcUserBuilder } from '@a2a-js/sdk/server/grpc';
import { A2AService, grpcService } from '@a2a-js/sdk/server/grpc';
import type { Binding } from '@a2a-reminders/core';
import {
  agentCard,
  createReminderService,
  reminderAgentExtension,
  withTaskReminders,
} from '@a2a-reminders/core';
import { grpcReminderService, TaskReminderServiceDefinition } from '@a2a-reminders/grpc';
import { jsonRpcHandlerWithReminders } from '@a2a-reminders/jsonrpc';
import { restHandlerWithReminders } from '@a2a-reminders/rest';
import { createSdkStack, listen } from '@a2a-reminders/test-support';
import * as grpc from '@grpc/grpc-js';
import express from 'express';

export interface TestAgentOptions {
  /** Rewrites the card's interfaces before it is served (e.g. add a tenant or a decoy). */
  readonly interfaces?: (served: AgentInterface[]) => AgentInterface[];
  /** Serve a card without the reminders extension. */
  readonly withoutExtension?: boolean;
}

/** One request as a server saw it. */
export interface SeenCall {
  readonly binding: Binding | 'card';
  /** The HTTP path or gRPC method path. */
  readonly path: string;
  /** Lower-cased header / metadata names. */
  readonly headers: Readonly<Record<string, string>>;
}

export interface TestAgent {
  /** `http://127.0.0.1:<port>`, the agent's base URL. */
  readonly url: string;
  /** The card it serves. */
  readonly card: AgentCard;
  readonly taskStore: InMemoryTaskStore;
  /** Every request its servers received, in order. */
  readonly seen: readonly SeenCall[];
  close(): Promise<void>;
}

/**
 * A real agent in process, as an application serves one with the SDK and
 * our binding packages: the card at the well-known path, JSON-RPC and REST
 * on express, gRPC on a grpc.Server, the caller named by
 * `authorization: Bearer <name>`.
 */
export async function startTestAgent(options: TestAgentOptions = {}): Promise<TestAgent> {
  const seen: SeenCall[] = [];
  const app = express();
  app.use((req, _res, next) => {
    const binding = req.path.startsWith('/a2a/jsonrpc')
      ? 'jsonrpc'
      : req.path.startsWith('/a2a/rest')
        ? 'rest'
        : 'card';
    seen.push({ binding, path: req.path, headers: headersOf(req.headers) });
    next();
  });
  const http = await listen(app);
  const grpcServer = new grpc.Server();
  const port = await new Promise<number>((resolve, reject) =>
    grpcServer.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, p) =>
      error ? reject(error) : resolve(p),
    ),
  );

  const base = agentCard({
    name: 'client test agent',
    description: 'the SDK and the reminder bindings on real ports',
    version: '0.0.0',
    interfaces: {
      jsonrpc: `${http.url}/a2a/jsonrpc`,
      rest: `${http.url}/a2a/rest`,
      grpc: `127.0.0.1:${port}`,
    },
  });
  const card = options.withoutExtension
    ? base
    : withTaskReminders(base, { agentExtension: () => reminderAgentExtension() });
  card.supportedInterfaces =
    options.interfaces?.(card.supportedInterfaces) ?? card.supportedInterfaces;
  const sdk = createSdkStack(card);
  const reminders = createReminderService({
    taskStore: sdk.taskStore,
    eventBusManager: sdk.eventBusManager,
  });

  const expressUser: ExpressUserBuilder = async (req) => userOf(req.header('authorization'));
  const httpOptions = { requestHandler: sdk.requestHandler, userBuilder: expressUser };
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: sdk.requestHandler }));
  app.use('/a2a/jsonrpc', jsonRpcHandlerWithReminders({ ...httpOptions, reminders }));
  app.use('/a2a/rest', restHandlerWithReminders({ ...httpOptions, reminders }));
  const userBuilder: GrpcUserBuilder = async (call) => {
    seen.push({ binding: 'grpc', path: call.getPath(), headers: metadataOf(call.metadata) });
    return userOf(call.metadata.get('authorization')[0]?.toString());
  };
  const grpcOptions = { requestHandler: sdk.requestHandler, userBuilder };
  // grpc-js serves services added after bindAsync; the card needs the port first.
  grpcServer.addService(A2AService, grpcService(grpcOptions));
  grpcServer.addService(
    TaskReminderServiceDefinition,
    grpcReminderService({ ...grpcOptions, reminders }),
  );

  return {
    url: http.url,
    card,
    taskStore: sdk.taskStore,
    seen,
    async close() {
      grpcServer.forceShutdown();
      await http.close();
    },
  };
}

function userOf(authorization: string | undefined): User {
  const name = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
  return name === undefined ? new UnauthenticatedUser() : { isAuthenticated: true, userName: name };
}

function headersOf(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (value !== undefined) headers[key] = Array.isArray(value) ? value.join(',') : value;
  }
  return headers;
}

function metadataOf(metadata: grpc.Metadata): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(metadata.getMap())) headers[key] = String(value);
  return headers;
}
