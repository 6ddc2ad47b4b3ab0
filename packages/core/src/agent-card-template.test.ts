import { describe, expect, it } from 'vitest';
import { agentCard } from './agent-card-template.js';
import { agentInterfaces, findAgentInterface } from './agent-interfaces.js';
import { BINDINGS, bindingOfProtocol } from './bindings.js';

const urls = {
  jsonrpc: 'http://h/a2a/jsonrpc',
  rest: 'http://h/a2a/rest',
  grpc: 'h:50051',
};

describe('agentInterfaces', () => {
  it('lists the given bindings at A2A 1.0, JSON-RPC first, by their card names', () => {
    expect(agentInterfaces({ grpc: urls.grpc, rest: urls.rest })).toEqual([
      { url: urls.rest, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: '' },
      { url: urls.grpc, protocolBinding: 'GRPC', protocolVersion: '1.0', tenant: '' },
    ]);
  });

  it('writes what findAgentInterface and bindingOfProtocol read back', () => {
    const card = agentCard({ name: 'a', description: 'd', version: '1', interfaces: urls });
    for (const binding of BINDINGS) {
      const iface = findAgentInterface(card, binding);
      expect(iface?.url).toBe(urls[binding]);
      expect(bindingOfProtocol(iface?.protocolBinding ?? '')).toBe(binding);
    }
    expect(bindingOfProtocol('SOAP')).toBeUndefined();
  });
});

describe('findAgentInterface', () => {
  it('skips other protocol versions', () => {
    const card = agentCard({ name: 'a', description: 'd', version: '1', interfaces: {} });
    card.supportedInterfaces = [
      { url: 'http://old', protocolBinding: 'JSONRPC', protocolVersion: '0.3', tenant: '' },
    ];
    expect(findAgentInterface(card, 'jsonrpc')).toBeUndefined();
  });
});

describe('agentCard', () => {
  it('fills what every card here shares and keeps what the agent gives', () => {
    const skill = {
      id: 's',
      name: 'skill',
      description: 'does',
      tags: [],
      examples: [],
      inputModes: [],
      outputModes: [],
      securityRequirements: [],
    };
    const card = agentCard({
      name: 'worker',
      description: 'works',
      version: '2.0.0',
      interfaces: { jsonrpc: urls.jsonrpc },
      skills: [skill],
    });
    expect(card).toEqual({
      name: 'worker',
      description: 'works',
      version: '2.0.0',
      provider: undefined,
      supportedInterfaces: agentInterfaces({ jsonrpc: urls.jsonrpc }),
      capabilities: { streaming: true, pushNotifications: false, extensions: [] },
      securitySchemes: {},
      securityRequirements: [],
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [skill],
      signatures: [],
    });
  });
});
