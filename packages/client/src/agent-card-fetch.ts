import type { AgentCard } from '@a2a-js/sdk';
import { AGENT_CARD_PATH } from '@a2a-js/sdk';
import { DefaultAgentCardResolver } from '@a2a-js/sdk/client';
import { AgentConnectionError, failureReason } from './agent-connection-error.js';

/**
 * The agent card URL for what a user typed: a URL ending in `.json` is the
 * card itself; any other URL is the agent's base URL, under which the card
 * is at the well-known path (A2A v1.0 §8.2).
 */
export function agentCardUrlOf(url: string): string {
  const parsed = new URL(url);
  if (parsed.pathname.endsWith('.json')) return parsed.href;
  const base = parsed.href.endsWith('/') ? parsed.href : `${parsed.href}/`;
  return new URL(AGENT_CARD_PATH, base).href;
}

/**
 * Fetches and normalizes the card with the SDK's resolver, so a card reads
 * exactly as the SDK's own `ClientFactory.createFromUrl` would read it; every
 * failure names the URL and its cause.
 */
export async function fetchAgentCard(url: string): Promise<AgentCard> {
  let cardUrl: string;
  try {
    cardUrl = agentCardUrlOf(url);
  } catch (error) {
    throw new AgentConnectionError(`not an agent URL: ${url}`, url, { cause: error });
  }
  const resolver = new DefaultAgentCardResolver({
    fetchImpl: async (input, init) => {
      let response: Response;
      try {
        response = await fetch(input, init);
      } catch (error) {
        throw new AgentConnectionError(
          `cannot reach the agent card at ${cardUrl}: ${failureReason(error)}`,
          cardUrl,
          { cause: error },
        );
      }
      if (!response.ok) {
        throw new AgentConnectionError(
          `the agent card at ${cardUrl} answered HTTP ${response.status}`,
          cardUrl,
        );
      }
      return response;
    },
  });
  try {
    return await resolver.resolve(cardUrl, '');
  } catch (error) {
    if (error instanceof AgentConnectionError) throw error;
    throw new AgentConnectionError(
      `the agent card at ${cardUrl} is not readable: ${failureReason(error)}`,
      cardUrl,
      { cause: error },
    );
  }
}
