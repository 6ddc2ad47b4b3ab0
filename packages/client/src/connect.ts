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

/** An agent reached over one binding with the stock SDK client only. */
export interface A2AConnection {
  readonly card: AgentCard;
  readonly binding: Binding;
  /** The card's interface URL the client uses. */
  readonly endpoint: string;
  /** The stock `@a2a-js/sdk` client (`ClientFactory`) on that interface. */
  readonly client: Client;
  /** Whether the card advertises the task-reminders extension (R2). */
  readonly servesReminders: boolean;
  /** Options for `client` calls: the connection's headers (the extension activated when served). */
  requestOptions(signal?: AbortSignal): RequestOptions;
  /** Closes the gRPC channel the client may hold; HTTP clients hold none. */
  close(): void;
}

/** One agent reached over one binding: the stock SDK client for A2A calls, ours for reminders. */
export interface AgentConnection extends A2AConnection {
  /** The binding package's reminder client on the same interface, with the same headers. */
  readonly reminders: ReminderClient;
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
  const a2a = await connectToA2AAgent(agent, options);
  if (!a2a.servesReminders) {
    a2a.close();
    throw new AgentConnectionError(
      `the agent card ${whereOf(agent, a2a.card)} does not advertise ${TASK_REMINDERS_EXTENSION_URI}`,
      nameOf(agent, a2a.card),
    );
  }
  return withReminderClient(a2a, options.headers);
}

/**
 * `a2a` with the binding package's reminder client beside its SDK client, on
 * the same interface with the same headers, for an agent whose card
 * advertises the extension. The result owns `a2a`: closing it closes both,
 * and `a2a` is closed if the reminder client cannot be built.
 */
export function withReminderClient(
  a2a: A2AConnection,
  headers: Readonly<Record<string, string>> = {},
): AgentConnection {
  const iface = findAgentInterface(a2a.card, a2a.binding);
  let reminders: ReturnType<typeof createReminderClient>;
  try {
    reminders = createReminderClient(a2a.binding, {
      url: a2a.endpoint,
      headers,
      ...(iface?.tenant === undefined ? {} : { tenant: iface.tenant }),
    });
  } catch (error) {
    a2a.close();
    throw error;
  }
  return {
    ...a2a,
    reminders,
    close() {
      reminders.close();
      a2a.close();
    },
  };
}

/**
 * Connects to any A2A agent over `options.binding`, reminders or not: the
 * card and the stock SDK client on its interface for that binding, with the
 * headers. For a caller that uses reminders where an agent serves them and
 * plain A2A where it does not (a worker delegating to another agent, spec
 * §15). Fails with an {@link AgentConnectionError} that names the card.
 */
export async function connectToA2AAgent(
  agent: string | AgentCard,
  options: ConnectOptions,
): Promise<A2AConnection> {
  const card = typeof agent === 'string' ? await fetchAgentCard(agent) : agent;
  const { binding } = options;
  const iface = findAgentInterface(card, binding);
  if (iface === undefined) {
    throw new AgentConnectionError(
      `the agent card ${whereOf(agent, card)} lists no ${PROTOCOL_BINDING_OF[binding]} 1.0 interface`,
      nameOf(agent, card),
    );
  }
  const servesReminders =
    card.capabilities?.extensions?.some((e) => e.uri === TASK_REMINDERS_EXTENSION_URI) ?? false;
  const client = await sdkClientFactory(binding).createFromAgentCard(card);
  const headers = options.headers ?? {};
  return {
    card,
    binding,
    endpoint: iface.url,
    client,
    servesReminders,
    requestOptions: (signal) =>
      servesReminders
        ? reminderRequestOptions(headers, signal)
        : { serviceParameters: { ...headers }, ...(signal === undefined ? {} : { signal }) },
    close() {
      closeSdkClient(client);
    },
  };
}

function nameOf(agent: string | AgentCard, card: AgentCard): string {
  return typeof agent === 'string' ? agentCardUrlOf(agent) : card.name;
}

function whereOf(agent: string | AgentCard, card: AgentCard): string {
  return typeof agent === 'string' ? `at ${nameOf(agent, card)}` : `of ${card.name}`;
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
