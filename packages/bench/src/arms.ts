/** The bindings the ratios are computed per (README, Goals). */
export type Binding = 'JSON-RPC' | 'REST' | 'gRPC';

/** Every binding, in the order the reports print them. */
export const BINDINGS: readonly Binding[] = ['JSON-RPC', 'REST', 'gRPC'];

/**
 * `inject`: every inject displaces its task's previous reminder (shared dedupe
 * key). `inject-plain`: no dedupe key, nothing displaced, no event published.
 * `send-reminder`: the workaround the extension replaces, a follow-up
 * SendMessage carrying a "System reminder:" text to the running task.
 * `sdk-write`: the SDK's own cheapest write beside a task,
 * CreateTaskPushNotificationConfig, the anchor of what a write costs next to
 * GetTask on this SDK (README, What it measures).
 */
export type ArmKind =
  | 'get'
  | 'get-stock'
  | 'inject'
  | 'inject-plain'
  | 'send-reminder'
  | 'sdk-write'
  | 'noop';

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
  'jsonrpc-get-mounted',
  'jsonrpc-get',
  'jsonrpc-inject',
  'jsonrpc-inject-plain',
  'jsonrpc-send-reminder',
  'jsonrpc-push-config',
  'rest-get-stock',
  'rest-get-mounted',
  'rest-get',
  'rest-inject',
  'rest-inject-plain',
  'rest-send-reminder',
  'rest-push-config',
  'grpc-noop',
  'grpc-get',
  'grpc-inject',
  'grpc-inject-plain',
  'grpc-send-reminder',
  'grpc-push-config',
] as const;

export type ArmName = (typeof ARM_NAMES)[number];

export const ARMS: Readonly<Record<ArmName, Arm>> = {
  'express-noop': arm('express-noop', 'express no-op', 'noop', ['JSON-RPC', 'REST']),
  'jsonrpc-get-stock': arm('jsonrpc-get-stock', 'JSON-RPC GetTask (stock path)', 'get-stock', [
    'JSON-RPC',
  ]),
  'jsonrpc-get-mounted': arm(
    'jsonrpc-get-mounted',
    'JSON-RPC GetTask (mounted path, paired)',
    'get',
    ['JSON-RPC'],
  ),
  'jsonrpc-get': arm('jsonrpc-get', 'JSON-RPC GetTask', 'get', ['JSON-RPC']),
  'jsonrpc-inject': arm('jsonrpc-inject', 'JSON-RPC Inject (displacing)', 'inject', ['JSON-RPC']),
  'jsonrpc-inject-plain': arm(
    'jsonrpc-inject-plain',
    'JSON-RPC Inject (nothing displaced)',
    'inject-plain',
    ['JSON-RPC'],
  ),
  'jsonrpc-send-reminder': arm(
    'jsonrpc-send-reminder',
    'JSON-RPC SendMessage workaround',
    'send-reminder',
    ['JSON-RPC'],
  ),
  'jsonrpc-push-config': arm(
    'jsonrpc-push-config',
    'JSON-RPC SDK CreateTaskPushNotificationConfig',
    'sdk-write',
    ['JSON-RPC'],
  ),
  'rest-get-stock': arm('rest-get-stock', 'REST GetTask (stock path)', 'get-stock', ['REST']),
  'rest-get-mounted': arm('rest-get-mounted', 'REST GetTask (mounted path, paired)', 'get', [
    'REST',
  ]),
  'rest-get': arm('rest-get', 'REST GetTask', 'get', ['REST']),
  'rest-inject': arm('rest-inject', 'REST Inject (displacing)', 'inject', ['REST']),
  'rest-inject-plain': arm('rest-inject-plain', 'REST Inject (nothing displaced)', 'inject-plain', [
    'REST',
  ]),
  'rest-send-reminder': arm('rest-send-reminder', 'REST SendMessage workaround', 'send-reminder', [
    'REST',
  ]),
  'rest-push-config': arm(
    'rest-push-config',
    'REST SDK CreateTaskPushNotificationConfig',
    'sdk-write',
    ['REST'],
  ),
  'grpc-noop': arm('grpc-noop', 'grpc-js no-op', 'noop', ['gRPC']),
  'grpc-get': arm('grpc-get', 'gRPC GetTask', 'get', ['gRPC']),
  'grpc-inject': arm('grpc-inject', 'gRPC Inject (displacing)', 'inject', ['gRPC']),
  'grpc-inject-plain': arm('grpc-inject-plain', 'gRPC Inject (nothing displaced)', 'inject-plain', [
    'gRPC',
  ]),
  'grpc-send-reminder': arm('grpc-send-reminder', 'gRPC SendMessage workaround', 'send-reminder', [
    'gRPC',
  ]),
  'grpc-push-config': arm(
    'grpc-push-config',
    'gRPC SDK CreateTaskPushNotificationConfig',
    'sdk-write',
    ['gRPC'],
  ),
};

function arm(name: ArmName, label: string, kind: ArmKind, bindings: Binding[]): Arm {
  return { name, label, kind, bindings };
}

export function isArmName(value: string): value is ArmName {
  return (ARM_NAMES as readonly string[]).includes(value);
}

/**
 * Blocks of adjacent arms (README, What it measures): per binding the arms of
 * its interleaved groups ({@link INTERLEAVED_GROUPS}; HTTP: the mounting pair,
 * then GetTask with the injects), then the SDK's
 * CreateTaskPushNotificationConfig and the SendMessage workaround, right after
 * the group of the injects. The blocks rotate one position per round, so no
 * block always runs first or always on the heap the other arms grew.
 */
export function roundOrder(round: number): ArmName[] {
  const blocks: ArmName[][] = [
    ['express-noop'],
    [
      'jsonrpc-get-stock',
      'jsonrpc-get-mounted',
      'jsonrpc-get',
      'jsonrpc-inject-plain',
      'jsonrpc-inject',
      'jsonrpc-push-config',
      'jsonrpc-send-reminder',
    ],
    [
      'rest-get-stock',
      'rest-get-mounted',
      'rest-get',
      'rest-inject-plain',
      'rest-inject',
      'rest-push-config',
      'rest-send-reminder',
    ],
    ['grpc-noop'],
    ['grpc-get', 'grpc-inject-plain', 'grpc-inject', 'grpc-push-config', 'grpc-send-reminder'],
  ];
  const shift = round % blocks.length;
  return [...blocks.slice(shift), ...blocks.slice(0, shift)].flat();
}

/**
 * Arms measured in one interleaved slice (README, What it measures): they
 * alternate in short parts, so a slowdown of the VM longer than a part falls
 * on all of them alike. Two slices of the same GetTask a few seconds apart
 * differ by more than the 3 % the mounting goal judges, and by about the 10 %
 * the inject goals judge. Per HTTP binding, the mounting pair (stock and
 * mounted GetTask) alternates alone: with the injects' parts between them,
 * the collections of the heap the injects grow fell on whichever GetTask part
 * they ran in, and the pair's ratio scattered by up to a quarter round to
 * round (README, "The mounting pair"). Each binding's GetTask is first in the
 * group of its injects: in ABCCBA it and the displacing inject each follow
 * the plain inject in half their parts.
 */
export const INTERLEAVED_GROUPS: readonly (readonly ArmName[])[] = [
  ['jsonrpc-get-stock', 'jsonrpc-get-mounted'],
  ['jsonrpc-get', 'jsonrpc-inject-plain', 'jsonrpc-inject'],
  ['rest-get-stock', 'rest-get-mounted'],
  ['rest-get', 'rest-inject-plain', 'rest-inject'],
  ['grpc-get', 'grpc-inject-plain', 'grpc-inject'],
];

/** {@link groupSliceScale} of a mounting pair. */
export const MOUNTING_PAIR_SLICE_SCALE = 2;

/** A mounting pair (or what `--arms` left of one with its stock arm): it holds a stock-path GetTask. */
export function isMountingPair(group: readonly ArmName[]): boolean {
  return group.some((arm) => ARMS[arm].kind === 'get-stock');
}

/**
 * How many times the default slice each arm of `group` gets, in as many
 * times the parts of the same length: two for a mounting pair, one for any
 * other group. The pair's goal (3 %) is a third of the inject goals' (10 %),
 * and its rounds, run without the injects, scattered by up to 5 % on the
 * main thread (README, "The mounting pair"); twice the measured time halves
 * the variance of what the parts average out.
 */
export function groupSliceScale(group: readonly ArmName[]): number {
  return isMountingPair(group) ? MOUNTING_PAIR_SLICE_SCALE : 1;
}

/**
 * What the run's header says of the mounting pairs' slices: nothing unless a
 * pair runs with both its arms among `included`.
 */
export function pairSliceText(included: (arm: ArmName) => boolean, parts: number): string {
  const pairRuns = INTERLEAVED_GROUPS.some(
    (group) => isMountingPair(group) && group.filter(included).length > 1,
  );
  return pairRuns
    ? ` (a mounting pair's ${MOUNTING_PAIR_SLICE_SCALE} times the slice, in ` +
        `${parts * MOUNTING_PAIR_SLICE_SCALE} parts each)`
    : '';
}

/** The group an arm is measured in, or undefined for an arm measured alone. */
export function interleavedGroup(arm: ArmName): readonly ArmName[] | undefined {
  return INTERLEAVED_GROUPS.find((group) => group.includes(arm));
}

/**
 * Which arm of a group of `arms` runs each part of an interleaved slice: the
 * group forwards, then backwards (ABBA for two, ABCCBA for three), repeated
 * `partsPerArm` times, starting backwards in odd rounds; with four or more,
 * the inner arms' order flips every other forwards-backwards pair (ABCDDCBA
 * ACBDDBCA). With an even count of parts a drift linear in time weighs every
 * arm alike, the first and the last arm follow each arm as often as each
 * other, and so do the inner ones (a part leaves the next one its garbage).
 */
export function interleavedOrder(partsPerArm: number, round: number, arms: number): number[] {
  const order: number[] = [];
  const inner = Array.from({ length: Math.max(0, arms - 2) }, (_, k) => k + 1);
  for (let cycle = 0; cycle < partsPerArm; cycle += 1) {
    const flipped = Math.floor(cycle / 2) % 2 === 1;
    const once = arms === 1 ? [0] : [0, ...(flipped ? [...inner].reverse() : inner), arms - 1];
    order.push(...((cycle + round) % 2 === 0 ? once : once.reverse()));
  }
  return order;
}
