import type { AgentCard } from '@a2a-js/sdk';
import type { Client, RequestOptions } from '@a2a-js/sdk/client';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
  ServiceParameters,
  withA2AExtensions,
} from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import type { ReminderClient } from '@a2a-reminders/core';
import { TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import { createGrpcReminderClient } from '@a2a-reminders/grpc';
import { createJsonRpcReminderClient } from '@a2a-reminders/jsonrpc';
import { createRestReminderClient } from '@a2a-reminders/rest';
import type { Binding, Connection } from './cli-args.js';
import { agentCardUrlOf } from './cli-args.js';

/** The agent card's `protocolBinding` for each `--binding`. */
export const PROTOCOL_BINDING_OF: Readonly<Record<Binding, string>> = {
  jsonrpc: 'JSONRPC',
  rest: 'HTTP+JSON',
  grpc: 'GRPC',
};

/** A worker reached over one binding: the stock SDK client for A2A calls, ours for reminders. */
export interface WorkerConnection {
  readonly card: AgentCard;
  readonly binding: Binding;
  /** The card's interface URL used for this binding. */
  readonly endpoint: string;
  readonly client: Client;
  readonly reminders: ReminderClient;
  /** Request options for SDK calls: the extra headers and the reminders extension activated. */
  requestOptions(signal?: AbortSignal): RequestOptions;
  close(): void;
}

/**
 * Resolves the worker's agent card and connects over `connection.binding`:
 * the SDK `ClientFactory` picks the card's interface for that binding, and the
 * reminder client is built for the same interface (issue 5: "it resolves the
 * card and picks the interface URLs for the binding").
 */
export async function connectToWorker(connection: Connection): Promise<WorkerConnection> {
  const cardUrl = agentCardUrlOf(connection.url);
  const card = await new DefaultAgentCardResolver().resolve(cardUrl, cardUrl);
  const protocolBinding = PROTOCOL_BINDING_OF[connection.binding];
  const iface = card.supportedInterfaces.find(
    (i) => i.protocolBinding === protocolBinding && i.protocolVersion === '1.0',
  );
  if (iface === undefined) {
    throw new Error(`the agent card at ${cardUrl} lists no ${protocolBinding} 1.0 interface`);
  }
  const extension = card.capabilities?.extensions.find(
    (e) => e.uri === TASK_REMINDERS_EXTENSION_URI,
  );
  if (extension === undefined) {
    throw new Error(`the agent at ${cardUrl} does not advertise ${TASK_REMINDERS_EXTENSION_URI}`);
  }

  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [
        new JsonRpcTransportFactory(),
        new RestTransportFactory(),
        new GrpcTransportFactory(),
      ],
      preferredTransports: [protocolBinding],
    }),
  );
  const client = await factory.createFromAgentCard(card);
  const options = {
    // gRPC interfaces are `host:port` for grpc-js; our connect-based client wants a URL.
    baseUrl: connection.binding === 'grpc' ? grpcBaseUrl(iface.url) : iface.url,
    headers: connection.headers,
  };
  const reminders = createReminderClient(connection.binding, options);

  return {
    card,
    binding: connection.binding,
    endpoint: iface.url,
    client,
    reminders,
    requestOptions(signal) {
      return {
        serviceParameters: ServiceParameters.create(
          (p) => Object.assign(p, connection.headers),
          withA2AExtensions(TASK_REMINDERS_EXTENSION_URI),
        ),
        ...(signal ? { signal } : {}),
      };
    },
    close() {
      (reminders as Partial<{ close(): void }>).close?.();
    },
  };
}

function createReminderClient(
  binding: Binding,
  options: { baseUrl: string; headers: Readonly<Record<string, string>> },
): ReminderClient {
  switch (binding) {
    case 'jsonrpc':
      return createJsonRpcReminderClient(options);
    case 'rest':
      return createRestReminderClient(options);
    case 'grpc':
      return createGrpcReminderClient(options);
  }
}

/** `127.0.0.1:50051` → `http://127.0.0.1:50051`; a URL passes through. */
export function grpcBaseUrl(address: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(address) ? address : `http://${address}`;
}
