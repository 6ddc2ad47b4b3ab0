import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Binding } from '@a2a-reminders/client';
import { BINDINGS } from '@a2a-reminders/client';
import { TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connection } from './cli-args.js';
import { describeError, UnreachableError } from './cli-errors.js';
import { listCommand, watchCommand } from './commands.js';
import { closedPort } from './testing/closed-port.js';

// Issue 11: an unreachable worker said `error: fetch failed`, with neither the
// URL nor the reason. Here the agent card is served, but every interface it
// lists is a port nobody listens on; and one card URL is such a port itself.

describe('a worker that cannot be reached', () => {
  let cardServer: Server;
  let cardUrl: string;
  let deadPort: number;
  const interfaceUrl: Record<Binding, string> = { jsonrpc: '', rest: '', grpc: '' };

  beforeAll(async () => {
    deadPort = await closedPort();
    const dead = `127.0.0.1:${deadPort}`;
    interfaceUrl.jsonrpc = `http://${dead}/a2a/jsonrpc`;
    interfaceUrl.rest = `http://${dead}/a2a/rest`;
    interfaceUrl.grpc = dead;
    const card = {
      name: 'unreachable worker',
      description: 'a card whose interfaces nobody serves',
      version: '0.1.0',
      supportedInterfaces: [
        { url: interfaceUrl.jsonrpc, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: interfaceUrl.rest, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
        { url: interfaceUrl.grpc, protocolBinding: 'GRPC', protocolVersion: '1.0' },
      ],
      capabilities: { streaming: true, extensions: [{ uri: TASK_REMINDERS_EXTENSION_URI }] },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [],
    };
    cardServer = createServer((_, response) => {
      response.setHeader('Content-Type', 'application/json');
      response.end(JSON.stringify(card));
    });
    await new Promise<void>((resolve) => cardServer.listen(0, '127.0.0.1', resolve));
    const { port } = cardServer.address() as AddressInfo;
    cardUrl = `http://127.0.0.1:${port}/.well-known/agent-card.json`;
  });

  afterAll(async () => {
    await new Promise((resolve) => cardServer.close(resolve));
  });

  const failureOf = async (run: () => Promise<void>): Promise<unknown> => {
    try {
      await run();
    } catch (error) {
      return error;
    }
    throw new Error('expected the command to fail');
  };

  it('names the agent card URL and the reason when the card cannot be fetched', async () => {
    const url = `http://127.0.0.1:${deadPort}`;
    const connection: Connection = { url, binding: 'jsonrpc', headers: {} };
    const error = await failureOf(() =>
      listCommand(
        { kind: 'list', connection, tenant: '', taskId: 't', liveOnly: false, json: false },
        () => {},
      ),
    );
    expect(describeError(error)).toBe(
      `error: cannot reach the agent card at ${url}/.well-known/agent-card.json: ` +
        `connect ECONNREFUSED 127.0.0.1:${deadPort}`,
    );
  });

  it.each(BINDINGS)(
    'names the %s interface URL and the reason when an A2A call cannot connect',
    async (binding) => {
      const connection: Connection = { url: cardUrl, binding, headers: {} };
      const error = await failureOf(() =>
        watchCommand({ kind: 'watch', connection, tenant: '', taskId: 't' }, () => {}),
      );
      expect(error).toBeInstanceOf(UnreachableError);
      const line = describeError(error);
      expect(
        line.startsWith(
          `error: cannot reach the ${binding} interface at ${interfaceUrl[binding]}: `,
        ),
        line,
      ).toBe(true);
      expect(line).toMatch(new RegExp(`connect ECONNREFUSED 127\\.0\\.0\\.1:${deadPort}$`));
      expect(line.match(/ECONNREFUSED/g), line).toHaveLength(1);
    },
  );

  it.each(BINDINGS)(
    'names the %s interface URL and the reason when a reminder call cannot connect',
    async (binding) => {
      const connection: Connection = { url: cardUrl, binding, headers: {} };
      const error = await failureOf(() =>
        listCommand(
          { kind: 'list', connection, tenant: '', taskId: 't', liveOnly: false, json: false },
          () => {},
        ),
      );
      // The reminder clients name the URL themselves; the CLI adds the cause fetch hid.
      const line = describeError(error);
      expect(line).toMatch(/^error: [A-Z_]+: /);
      expect(line).toContain(interfaceUrl[binding]);
      expect(line.match(/ECONNREFUSED/g), line).toHaveLength(1);
      expect(line.split('\n')).toHaveLength(1);
    },
  );
});
