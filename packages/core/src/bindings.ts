/** The three A2A bindings an agent can serve the reminder rpcs on, in our own spelling. */
export type Binding = 'jsonrpc' | 'rest' | 'grpc';

export const BINDINGS: readonly Binding[] = ['jsonrpc', 'rest', 'grpc'];

/** How an agent card's `supportedInterfaces[].protocolBinding` names each binding (A2A v1.0). */
export const PROTOCOL_BINDING_OF = {
  jsonrpc: 'JSONRPC',
  rest: 'HTTP+JSON',
  grpc: 'GRPC',
} as const satisfies Record<Binding, string>;

export type ProtocolBinding = (typeof PROTOCOL_BINDING_OF)[Binding];

/**
 * The A2A protocol version every interface here is served and looked up at:
 * the SDK serves a version only on interfaces that declare it, and the
 * reminder clients send `A2A-Version: 1.0` (W6).
 */
export const A2A_PROTOCOL_VERSION = '1.0';

/** `'HTTP+JSON'` → `'rest'`; `undefined` for a binding we do not serve. */
export function bindingOfProtocol(protocolBinding: ProtocolBinding): Binding;
export function bindingOfProtocol(protocolBinding: string): Binding | undefined;
export function bindingOfProtocol(protocolBinding: string): Binding | undefined {
  return BINDINGS.find((b) => PROTOCOL_BINDING_OF[b] === protocolBinding);
}
