import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CardCheckError, checkAgentCard } from './card-check.js';

const EXTENSION = 'https://a2a-reminders.dev/extensions/task-reminders/v1';

function card(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'Test agent',
    description: 'serves reminders',
    version: '1.0.0',
    capabilities: { streaming: true, extensions: [{ uri: EXTENSION, required: false }] },
    supportedInterfaces: [
      { url: 'http://127.0.0.1:1/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: 'http://127.0.0.1:1/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ],
    ...overrides,
  };
}

/** Path → what the server answers there. */
const ROUTES: Record<string, { status?: number; type?: string; body: string }> = {
  '/card.json': { body: JSON.stringify(card()) },
  '/missing.json': { status: 404, body: 'not found' },
  '/html': { type: 'text/html', body: '<html>hello</html>' },
  '/array.json': { body: '[]' },
  '/nameless.json': { body: JSON.stringify(card({ name: undefined })) },
  '/v03.json': {
    body: JSON.stringify({
      ...card({ supportedInterfaces: undefined }),
      url: 'http://x',
      preferredTransport: 'JSONRPC',
    }),
  },
  '/bad-interface.json': {
    body: JSON.stringify(card({ supportedInterfaces: [{ url: 'http://x' }] })),
  },
  '/no-extension.json': {
    body: JSON.stringify(
      card({ capabilities: { extensions: [{ uri: 'https://other.example/ext' }] } }),
    ),
  },
  '/no-extensions.json': { body: JSON.stringify(card({ capabilities: {} })) },
  '/grpc-only.json': {
    body: JSON.stringify(
      card({
        supportedInterfaces: [
          { url: '127.0.0.1:1', protocolBinding: 'GRPC', protocolVersion: '1.0' },
          // Served at 0.3 only: not an interface the kit's clients would pick.
          { url: 'http://127.0.0.1:1/old', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
        ],
      }),
    ),
  },
  '/lowercase.json': {
    body: JSON.stringify(
      card({
        supportedInterfaces: [
          { url: 'http://127.0.0.1:1/rpc', protocolBinding: 'jsonrpc', protocolVersion: '1.0' },
        ],
      }),
    ),
  },
  '/guarded.json': { body: JSON.stringify(card()) },
};

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    const route = ROUTES[request.url ?? ''];
    if (request.url === '/guarded.json' && request.headers.authorization !== 'Bearer let-me-in') {
      response.writeHead(401).end();
      return;
    }
    response.writeHead(route?.status ?? (route === undefined ? 404 : 200), {
      'content-type': route?.type ?? 'application/json',
    });
    response.end(route?.body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

async function failure(
  path: string,
  options: Parameters<typeof checkAgentCard>[1] = {},
): Promise<string> {
  const error: unknown = await checkAgentCard(
    path.startsWith('/') ? `${base}${path}` : path,
    options,
  ).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CardCheckError);
  return (error as Error).message;
}

describe('checkAgentCard', () => {
  test('a card with the extension: the bindings it serves, of those asked, and the asked ones it does not', async () => {
    await expect(checkAgentCard(`${base}/card.json`)).resolves.toEqual({
      agentName: 'Test agent',
      served: ['jsonrpc', 'rest'],
      bindings: ['jsonrpc', 'rest'],
      notServed: ['grpc'],
    });
    await expect(
      checkAgentCard(`${base}/card.json`, { bindings: ['rest', 'grpc'] }),
    ).resolves.toMatchObject({
      bindings: ['rest'],
      notServed: ['grpc'],
    });
  });

  test('the extra headers are sent with the card request', async () => {
    expect(await failure('/guarded.json')).toContain('answered HTTP 401');
    await expect(
      checkAgentCard(`${base}/guarded.json`, { headers: { authorization: 'Bearer let-me-in' } }),
    ).resolves.toMatchObject({ agentName: 'Test agent' });
  });

  test('a card that cannot be read says where and why', async () => {
    expect(await failure('not a url')).toBe('--card-url is not a URL: not a url');
    expect(await failure('ftp://example.com/card.json')).toContain('must be an http or https URL');
    expect(await failure('/missing.json')).toBe(
      `cannot read the agent card at ${base}/missing.json: it answered HTTP 404`,
    );
    expect(await failure('/html')).toContain('is not JSON (text/html): "<html>hello</html>"');
    // A closed port: the connection is refused, and the cause says so.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await failure(`http://127.0.0.1:${port}/card.json`)).toMatch(
      /cannot read the agent card at .*ECONNREFUSED/,
    );
  });

  test('JSON that is not an A2A 1.0 agent card is refused with the reason', async () => {
    expect(await failure('/array.json')).toContain(
      'does not hold an A2A agent card: the JSON is not an object',
    );
    expect(await failure('/nameless.json')).toContain('it has no "name"');
    expect(await failure('/v03.json')).toContain('looks like an A2A 0.3 card');
    expect(await failure('/bad-interface.json')).toContain('has no "url" or "protocolBinding"');
  });

  test('a card without the extension is refused, naming the extensions it lists', async () => {
    expect(await failure('/no-extension.json')).toBe(
      `the agent card at ${base}/no-extension.json does not list the extension ${EXTENSION} in capabilities.extensions (it lists https://other.example/ext)`,
    );
    expect(await failure('/no-extensions.json')).toContain('(it lists none)');
  });

  test('a card serving none of the asked bindings is refused, naming what it serves', async () => {
    expect(await failure('/card.json', { bindings: ['grpc'] })).toBe(
      `the agent card at ${base}/card.json serves none of the bindings asked for at A2A 1.0: asked grpc (GRPC); it lists JSONRPC, HTTP+JSON`,
    );
    // As the kit's clients pick an interface: a binding served at 0.3 only does not count ...
    await expect(checkAgentCard(`${base}/grpc-only.json`)).resolves.toMatchObject({
      served: ['grpc'],
      bindings: ['grpc'],
    });
    // ... and a binding's name matches in any case.
    await expect(checkAgentCard(`${base}/lowercase.json`)).resolves.toMatchObject({
      served: ['jsonrpc'],
    });
  });
});
