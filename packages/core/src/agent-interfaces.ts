import type { AgentCard, AgentInterface } from '@a2a-js/sdk';
import type { Binding } from './bindings.js';
import { A2A_PROTOCOL_VERSION, BINDINGS, PROTOCOL_BINDING_OF } from './bindings.js';

/**
 * Where an agent serves each binding: the JSON-RPC endpoint URL, the REST
 * base URL, and the gRPC address as grpc-js dials it (`host:port`) or a URL.
 */
export type InterfaceUrls = Partial<Readonly<Record<Binding, string>>>;

/**
 * The card's `supportedInterfaces` for the bindings given, JSON-RPC first,
 * each at A2A 1.0: written with the same table {@link findAgentInterface}
 * reads, so a client always finds the interface a server lists.
 */
export function agentInterfaces(urls: InterfaceUrls): AgentInterface[] {
  return BINDINGS.flatMap((binding) => {
    const url = urls[binding];
    return url === undefined
      ? []
      : [
          {
            url,
            protocolBinding: PROTOCOL_BINDING_OF[binding],
            protocolVersion: A2A_PROTOCOL_VERSION,
            tenant: '',
          },
        ];
  });
}

/**
 * The card's A2A 1.0 interface for `binding`, or `undefined` when it lists
 * none. Of several, the last: the one the SDK's `ClientFactory` picks (it
 * keeps the last 1.0 entry per binding), so the reminder client and the SDK
 * client of one connection always talk to the same endpoint.
 */
export function findAgentInterface(card: AgentCard, binding: Binding): AgentInterface | undefined {
  // A card read as JSON carries no defaults: the list may be missing (an A2A
  // 0.3 card has none). Binding names match without case, as in ClientFactory.
  const wanted = PROTOCOL_BINDING_OF[binding].toUpperCase();
  return (card.supportedInterfaces ?? []).findLast(
    (i) =>
      i.protocolBinding?.toUpperCase() === wanted && i.protocolVersion === A2A_PROTOCOL_VERSION,
  );
}
