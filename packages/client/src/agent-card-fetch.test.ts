import { listen } from '@a2a-reminders/test-support';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { agentCardUrlOf, fetchAgentCard } from './agent-card-fetch.js';
import { AgentConnectionError } from './agent-connection-error.js';

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e as AgentConnectionError,
  );

describe('agentCardUrlOf', () => {
  it('adds the well-known path to a base URL and keeps a card URL', () => {
    const card = 'http://127.0.0.1:5000/.well-known/agent-card.json';
    expect(agentCardUrlOf(card)).toBe(card);
    expect(agentCardUrlOf('http://127.0.0.1:5000')).toBe(card);
    expect(agentCardUrlOf('http://127.0.0.1:5000/')).toBe(card);
    expect(agentCardUrlOf('http://h/agents/a')).toBe(
      'http://h/agents/a/.well-known/agent-card.json',
    );
    expect(agentCardUrlOf('http://h/cards/a.json')).toBe('http://h/cards/a.json');
  });
});

describe('fetchAgentCard', () => {
  it('names the URL and the socket error when nothing listens, not "fetch failed"', async () => {
    const gone = await listen(express());
    await gone.close();
    const error = await failureOf(fetchAgentCard(gone.url));
    expect(error).toBeInstanceOf(AgentConnectionError);
    expect(error.agent).toBe(`${gone.url}/.well-known/agent-card.json`);
    expect(error.message).toMatch(
      new RegExp(
        `^cannot reach the agent card at ${gone.url}/\\.well-known/agent-card\\.json: .*ECONNREFUSED`,
      ),
    );
  });

  it('names the HTTP status of a card that is not there, and a body that is no card', async () => {
    const app = express();
    app.get('/broken.json', (_req, res) => {
      res.type('application/json').send('{not json');
    });
    const server = await listen(app);
    try {
      const absent = await failureOf(fetchAgentCard(`${server.url}/absent.json`));
      expect(absent.message).toBe(`the agent card at ${server.url}/absent.json answered HTTP 404`);
      const broken = await failureOf(fetchAgentCard(`${server.url}/broken.json`));
      expect(broken.message).toMatch(
        new RegExp(`^the agent card at ${server.url}/broken\\.json is not readable: `),
      );
    } finally {
      await server.close();
    }
  });

  it('refuses what is not a URL', async () => {
    const error = await failureOf(fetchAgentCard('localhost 8080'));
    expect(error.message).toBe('not an agent URL: localhost 8080');
  });
});
