/**
 * The four arms every requirement is verified on (issue 4): core in process
 * (the reference arm) and the three bindings over real servers.
 */
export const ARMS = ['direct', 'jsonrpc', 'rest', 'grpc'] as const;

export type Arm = (typeof ARMS)[number];

/** The A2A protocol binding whose stock SDK client each arm uses for standard calls. */
export const SDK_BINDING_OF = {
  direct: 'JSONRPC',
  jsonrpc: 'JSONRPC',
  rest: 'HTTP+JSON',
  grpc: 'GRPC',
} as const satisfies Record<Arm, 'JSONRPC' | 'HTTP+JSON' | 'GRPC'>;
