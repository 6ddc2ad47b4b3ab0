import type { AgentCard } from '@a2a-js/sdk';

/** The bench agent's card: A2A 1.0 on all three bindings (the SDK checks A2A-Version against it). */
export function benchAgentCard(): AgentCard {
  const iface = (url: string, protocolBinding: string) => ({
    url,
    protocolBinding,
    tenant: '',
    protocolVersion: '1.0',
  });
  return {
    name: 'reminders bench agent',
    description: 'long-running WORKING tasks for the InjectTaskReminder load benchmark',
    version: '0.1.0',
    provider: undefined,
    supportedInterfaces: [
      iface('http://127.0.0.1/a2a/jsonrpc', 'JSONRPC'),
      iface('http://127.0.0.1/a2a/rest', 'HTTP+JSON'),
      iface('127.0.0.1:0', 'GRPC'),
    ],
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
    signatures: [],
  };
}
