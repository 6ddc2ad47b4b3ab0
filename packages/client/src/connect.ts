import type { AgentCard } from '@a2a-js/sdk';
import type { Client, RequestOptions } from '@a2a-js/sdk/client';
import {
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import type { Binding, ReminderClient } from '@a2a-reminders/core';
import {
  findAgentInterface,
  PROTOCOL_BINDING_OF,
  TASK_REMINDERS_EXTENSION_URI,
} from '@a2a-reminders/core';
import { agentCardUrlOf, fetchAgentCard } from './agent-card-fetch.js';
import { AgentConnectionError } from './agent-connection-error.js';
import { createReminderClient } from './reminder-client.js';
import { reminderRequestOptions } from './request-options.js';

export interface ConnectOptions {
  /** The binding to use for both clients. */
  readonly binding: Binding;
  /** Headers (HTTP) or metadata (gRPC) for every call of both clients, e.g. `authorization`. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** One agent reached over one binding: the stock SDK client for A2A calls, ours for reminders. */
export interface AgentConnection {
  readonly card: AgentCard;
  readonly binding: Binding;
  /** The card's interface URL both clients use. */
  readonly endpoint: string;
  /** The stock `@a2a-js/sdk` client (`ClientFactory`) on that interface. */
  readonly client: Client;
  /** The binding package's reminder client on the same interface, with the same headers. */
  readonly reminders: ReminderClient;
  /** Options for `client` calls: the connection's headers, the extension activated. */
  requestOptions(signal?: AbortSignal): RequestOptions;
  /** Closes the gRPC channels both clients may hold; HTTP clients hold none. */
  close(): void;
}

/**
 * Connects to an agent over `options.binding`: resolves its card (from the
 * card URL or the agent's base URL, or takes the card given), checks that it
 * serves that binding at A2A 1.0 and advertises the reminders extension
 * (R2), and builds the SDK client and the reminder client for the same
 * interface. Fails with an {@link AgentConnectionError} that names the card.
 */
export async function connectToAgent(
  agent: string | AgentCard,
  options: ConnectOptions,
): Promise<AgentConnection> {
  const card = typeof agent === 'string' ? await fetchAgentCard(agent) : agent;
  const agentName = typeof agent === 'string' ? agentCardUrlOf(agent) : card.name;
  const where = typeof agent === 'string' ? `at ${agentName}` : `of ${agentName}`;
  const { binding } = options;
  const iface = findAgentInterface(card, binding);
  if (iface === undefined) {
    throw new AgentConnectionError(
      `the agent card ${where} lists no ${PROTOCOL_BINDING_OF[binding]} 1.0 interface`,
      agentName,
    );
  }
  if (!card.capabilities?.extensions?.some((e) => e.uri === TASK_REMINDERS_EXTENSION_URI)) {
    throw new AgentConnectionError(
      `the agent card ${where} does not advertise ${TASK_REMINDERS_EXTENSION_URI}`,
      agentName,
    );
  }

  const client = await sdkClientFactory(binding).createFromAgentCard(card);
  const headers = options.headers ?? {};
  const reminders = createReminderClient(binding, {
    url: iface.url,
    headers,
    tenant: iface.tenant,
  });
  return {
    card,
    binding,
    endpoint: iface.url,
    client,
    reminders,
    requestOptions: (signal) => reminderRequestOptions(headers, signal),
    close() {
      reminders.close();
      closeSdkClient(client);
    },
  };
}

/** The SDK's factory with all three transports, preferring `binding`'s. */
function sdkClientFactory(binding: Binding): ClientFactory {
  return new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [
        new JsonRpcTransportFactory(),
        new RestTransportFactory(),
        new GrpcTransportFactory(),
      ],
      preferredTransports: [PROTOCOL_BINDING_OF[binding]],
    }),
  );
}

interface GrpcChannelHolder {
  readonly grpcClient?: { close(): void };
  /** What the SDK's TenantTransportDecorator wraps. */
  readonly base?: GrpcChannelHolder;
}

/**
 * The SDK's gRPC transport keeps its grpc-js channel in `grpcClient` and has
 * no close(); an open channel keeps a process (or a test's server) alive.
 */
function closeSdkClient(client: Client): void {
  const transport = client.transport as GrpcChannelHolder;
  (transport.grpcClient ?? transport.base?.grpcClient)?.close();
}
