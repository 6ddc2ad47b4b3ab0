/** The bindings the ratios are computed per (README, Goals). */
export type Binding = 'JSON-RPC' | 'REST' | 'gRPC';

export type ArmKind = 'get' | 'get-stock' | 'inject' | 'noop';

export interface Arm {
  readonly name: ArmName;
  readonly label: string;
  readonly kind: ArmKind;
  /** The binding a get/inject arm belongs to; for a no-op, the bindings it is the ceiling of. */
  readonly bindings: readonly Binding[];
}

export const ARM_NAMES = [
  'express-noop',
  'jsonrpc-get-stock',
  'jsonrpc-get',
  'jsonrpc-inject',
  'rest-get-stock',
  'rest-get',
  'rest-inject',
  'grpc-noop',
  'grpc-get',
  'grpc-inject',
] as const;

export type ArmName = (typeof ARM_NAMES)[number];

export const ARMS: Readonly<Record<ArmName, Arm>> = {
  'express-noop': arm('express-noop', 'express no-op', 'noop', ['JSON-RPC', 'REST']),
  'jsonrpc-get-stock': arm('jsonrpc-get-stock', 'JSON-RPC GetTask (stock path)', 'get-stock', [
    'JSON-RPC',
  ]),
  'jsonrpc-get': arm('jsonrpc-get', 'JSON-RPC GetTask', 'get', ['JSON-RPC']),
  'jsonrpc-inject': arm('jsonrpc-inject', 'JSON-RPC InjectTaskReminder', 'inject', ['JSON-RPC']),
  'rest-get-stock': arm('rest-get-stock', 'REST GetTask (stock path)', 'get-stock', ['REST']),
  'rest-get': arm('rest-get', 'REST GetTask', 'get', ['REST']),
  'rest-inject': arm('rest-inject', 'REST InjectTaskReminder', 'inject', ['REST']),
  'grpc-noop': arm('grpc-noop', 'grpc-js no-op', 'noop', ['gRPC']),
  'grpc-get': arm('grpc-get', 'gRPC GetTask', 'get', ['gRPC']),
  'grpc-inject': arm('grpc-inject', 'gRPC InjectTaskReminder', 'inject', ['gRPC']),
};

function arm(name: ArmName, label: string, kind: ArmKind, bindings: Binding[]): Arm {
  return { name, label, kind, bindings };
}

export function isArmName(value: string): value is ArmName {
  return (ARM_NAMES as readonly string[]).includes(value);
}

/**
 * Blocks of adjacent arms (README, What it measures): stock GetTask right before the
 * extension-mounted one, and each Inject right after its GetTask twin. The
 * blocks rotate one position per round, so no block always runs first or
 * always on the heap the Inject arms grew.
 */
export function roundOrder(round: number): ArmName[] {
  const blocks: ArmName[][] = [
    ['express-noop'],
    ['jsonrpc-get-stock', 'jsonrpc-get', 'jsonrpc-inject'],
    ['rest-get-stock', 'rest-get', 'rest-inject'],
    ['grpc-noop'],
    ['grpc-get', 'grpc-inject'],
  ];
  const shift = round % blocks.length;
  return [...blocks.slice(shift), ...blocks.slice(0, shift)].flat();
}
