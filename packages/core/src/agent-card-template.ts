import type { AgentCard } from '@a2a-js/sdk';
import type { InterfaceUrls } from './agent-interfaces.js';
import { agentInterfaces } from './agent-interfaces.js';

/** What differs between agents; {@link agentCard} fills in the rest. */
export interface AgentCardFields
  extends Partial<Omit<AgentCard, 'name' | 'description' | 'version' | 'supportedInterfaces'>> {
  readonly name: string;
  readonly description: string;
  readonly version: string;
  /** Where each binding is served (see {@link agentInterfaces}). */
  readonly interfaces: InterfaceUrls;
}

/**
 * An A2A v1.0 agent card: the given interfaces at protocol version 1.0,
 * streaming on (reminder events reach callers on the task's stream), plain
 * text in and out, no security schemes, skills or signatures unless given.
 * Add the extension with core's `withTaskReminders`.
 */
export function agentCard(fields: AgentCardFields): AgentCard {
  const { interfaces, capabilities, ...rest } = fields;
  return {
    provider: undefined,
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
    signatures: [],
    ...rest,
    // Merged, so giving `extensions` keeps streaming on.
    capabilities: { streaming: true, pushNotifications: false, extensions: [], ...capabilities },
    supportedInterfaces: agentInterfaces(interfaces),
  };
}
