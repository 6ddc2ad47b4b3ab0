import type { AgentCard } from '@a2a-js/sdk';
import type { AgentExtensionSource } from '@a2a-reminders/core';
import { agentCard, withTaskReminders } from '@a2a-reminders/core';

/** Where the worker serves each binding, relative to its HTTP base URL. */
export const JSONRPC_PATH = '/a2a/jsonrpc';
export const REST_PATH = '/a2a/rest';

export interface AgentCardInput {
  /** `http://host:port` of the express server. */
  readonly httpBaseUrl: string;
  /** `host:port` of the gRPC server, as gRPC clients dial it. */
  readonly grpcAddress: string;
  /** The reminder service, which describes its own extension entry. */
  readonly reminders: AgentExtensionSource;
  /** The card's name; {@link DEFAULT_AGENT_NAME} when absent. */
  readonly name?: string;
}

export const DEFAULT_AGENT_NAME = 'a2a-reminders coding worker';

/**
 * The worker's A2A v1.0 agent card: the three bindings at protocol version
 * 1.0 (the SDK serves a version only on bindings that declare it) and the
 * task-reminders extension in `capabilities.extensions` (spec: Advertising).
 */
export function buildAgentCard(input: AgentCardInput): AgentCard {
  const card = agentCard({
    name: input.name ?? DEFAULT_AGENT_NAME,
    description:
      'Example worker agent: runs a delegated coding task as a multi-turn loop and surfaces ' +
      'task reminders to its model at each turn, never as user messages.',
    version: '0.1.0',
    interfaces: {
      jsonrpc: `${input.httpBaseUrl}${JSONRPC_PATH}`,
      rest: `${input.httpBaseUrl}${REST_PATH}`,
      grpc: input.grpcAddress,
    },
    capabilities: {
      streaming: true,
      pushNotifications: true,
      extensions: [],
      extendedAgentCard: false,
    },
    skills: [
      {
        id: 'coding-task',
        name: 'Delegated coding task',
        description: 'Plans, edits and tests a change on a branch, one step per turn.',
        tags: ['coding', 'reminders'],
        examples: ['Add retry with exponential backoff to the HTTP client'],
        inputModes: ['text/plain'],
        outputModes: ['text/plain'],
        securityRequirements: [],
      },
    ],
  });
  return withTaskReminders(card, input.reminders);
}
