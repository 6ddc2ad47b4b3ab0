import type { AgentCard } from '@a2a-js/sdk';
import { agentCard } from '@a2a-reminders/client';
import { HTTP_PATHS } from './wire.js';

/**
 * The bench agent's card: A2A 1.0 on all three bindings (the SDK checks
 * A2A-Version against it). The bench server serves no card, so its URLs
 * matter only to a client built from it: give the ports the servers took.
 */
export function benchAgentCard(
  httpBaseUrl = 'http://127.0.0.1',
  grpcAddress = '127.0.0.1:0',
): AgentCard {
  return agentCard({
    name: 'reminders bench agent',
    description: 'long-running WORKING tasks for the InjectTaskReminder load benchmark',
    version: '0.1.0',
    interfaces: {
      jsonrpc: `${httpBaseUrl}${HTTP_PATHS.jsonrpc}`,
      rest: `${httpBaseUrl}${HTTP_PATHS.rest}`,
      grpc: grpcAddress,
    },
  });
}
