import type { AgentCard } from '@a2a-js/sdk';
import { ServerCallContext, STATE_HEADERS_KEY } from '@a2a-js/sdk/server';
import { describe, expect, it } from 'vitest';
import { buildCallContext } from './call-context.js';
import { ReminderError } from './errors.js';
import { TASK_REMINDERS_EXTENSION_URI } from './extension-uri.js';
import { TestUser } from './testing/harness.js';

const card = {
  supportedInterfaces: [
    { url: 'http://x/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' },
    { url: 'http://x/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: '' },
    { url: 'http://x:1', protocolBinding: 'GRPC', protocolVersion: '1.0', tenant: '' },
  ],
} as unknown as AgentCard;

const headers = {
  'a2a-version': '1.0',
  'a2a-extensions': `urn:a, ${TASK_REMINDERS_EXTENSION_URI}`,
};

describe('buildCallContext', () => {
  it('R3, R4: parses A2A-Extensions and A2A-Version like the SDK and keeps raw headers in state', () => {
    const user = new TestUser('alice');
    const ctx = buildCallContext({ user, headers, binding: 'JSONRPC', agentCard: card });
    expect(ctx.requestedExtensions).toEqual(['urn:a', TASK_REMINDERS_EXTENSION_URI]);
    expect(ctx.requestedVersion).toBe('1.0');
    expect(ctx.user).toBe(user);
    expect(ctx.state.get(STATE_HEADERS_KEY)).toBe(headers);
    expect(ctx.tenant).toBeUndefined();
  });

  it('R4: repeated extension headers are all read', () => {
    const ctx = buildCallContext({
      user: undefined,
      headers: { 'A2A-Version': '1.0', 'A2A-Extensions': ['urn:a', TASK_REMINDERS_EXTENSION_URI] },
      binding: 'GRPC',
      agentCard: card,
    });
    expect(ctx.requestedExtensions).toEqual(['urn:a', TASK_REMINDERS_EXTENSION_URI]);
  });

  it('R7: the tenant is set per binding as the SDK sets it', () => {
    const base = { user: undefined, headers, agentCard: card } as const;
    expect(buildCallContext({ ...base, binding: 'JSONRPC', tenant: 'acme' }).tenant).toBe('acme');
    expect(buildCallContext({ ...base, binding: 'JSONRPC', tenant: '' }).tenant).toBeUndefined();
    expect(buildCallContext({ ...base, binding: 'HTTP+JSON', tenant: 'acme' }).tenant).toBe('acme');
    expect(buildCallContext({ ...base, binding: 'HTTP+JSON', tenant: '' }).tenant).toBeUndefined();
    expect(buildCallContext({ ...base, binding: 'GRPC', tenant: '' }).tenant).toBe('');
  });

  it('R4: an absent A2A-Version means 0.3 and is refused as VERSION_NOT_SUPPORTED', () => {
    let err: unknown;
    try {
      buildCallContext({ user: undefined, headers: {}, binding: 'HTTP+JSON', agentCard: card });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ReminderError);
    expect((err as ReminderError).code).toBe('VERSION_NOT_SUPPORTED');
    // The message says what to send, not only what was refused.
    expect((err as ReminderError).message).toBe(
      "The requested A2A protocol version '0.3' is not supported. Supported versions: 1.0. " +
        'Send one of them in the A2A-Version header (gRPC metadata a2a-version); a call without it asks for 0.3.',
    );
  });

  it('R4: the version is checked against the interfaces of the binding', () => {
    const jsonRpcOnly = {
      supportedInterfaces: [card.supportedInterfaces[0]],
    } as unknown as AgentCard;
    expect(() =>
      buildCallContext({ user: undefined, headers, binding: 'GRPC', agentCard: jsonRpcOnly }),
    ).toThrow(ReminderError);
  });

  it('uses the given contextBuilder', () => {
    class Custom extends ServerCallContext {}
    const ctx = buildCallContext({
      user: undefined,
      headers,
      binding: 'JSONRPC',
      agentCard: card,
      contextBuilder: (o) =>
        new Custom({
          ...(o.extensions ? { requestedExtensions: o.extensions } : {}),
          requestedVersion: '1.0',
        }),
    });
    expect(ctx).toBeInstanceOf(Custom);
  });
});
