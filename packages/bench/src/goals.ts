import type { ArmName, Binding } from './arms.js';
import type { Metric } from './slice.js';
import type { Spread } from './stats.js';

/**
 * A goal of README, Goals on the median of per-round ratios: `min` goals
 * want the ratio at or above `target`, `max` goals at or below. `fail` is the
 * separate fail threshold where the goals gives one (between the two: target missed,
 * goal not failed). Without a goal a ratio is context, shown against `anchor`.
 */
export interface Goal {
  readonly kind: 'min' | 'max';
  readonly target: number;
  readonly fail?: number;
}

export interface RatioDef {
  readonly binding: Binding;
  readonly label: string;
  readonly num: ArmName;
  readonly den: ArmName;
  readonly metric: Metric;
  readonly goal?: Goal;
  /** The reference figure of README, Goals for context ratios. */
  readonly anchor?: string;
}

const ARMS_OF = {
  'JSON-RPC': {
    get: 'jsonrpc-get',
    stock: 'jsonrpc-get-stock',
    inject: 'jsonrpc-inject',
    noop: 'express-noop',
  },
  REST: { get: 'rest-get', stock: 'rest-get-stock', inject: 'rest-inject', noop: 'express-noop' },
  gRPC: { get: 'grpc-get', stock: undefined, inject: 'grpc-inject', noop: 'grpc-noop' },
} as const satisfies Record<
  Binding,
  { get: ArmName; stock: ArmName | undefined; inject: ArmName; noop: ArmName }
>;

/** Context figures (README, Goals): GetTask/no-op req/s and CPU (gRPC: the grpc-js client row, as this load uses it). */
const ANCHORS: Record<Binding, { reqPerSec: string; cpu: string; injectP50VsNoop: string }> = {
  'JSON-RPC': { reqPerSec: '0.78', cpu: '1.27', injectP50VsNoop: '≤ ~1.5' },
  REST: { reqPerSec: '0.82', cpu: '1.15', injectP50VsNoop: '≤ ~1.5' },
  gRPC: { reqPerSec: '0.79', cpu: '1.62', injectP50VsNoop: '≤ ~1.6' },
};

/** The ratios of README, Goals, per binding. */
export function ratioDefs(): RatioDef[] {
  const defs: RatioDef[] = [];
  for (const binding of ['JSON-RPC', 'REST', 'gRPC'] as const) {
    const a = ARMS_OF[binding];
    const inj = (label: string, metric: Metric, goal?: Goal, anchor?: string): RatioDef => ({
      binding,
      label,
      num: a.inject,
      den: a.get,
      metric,
      ...(goal ? { goal } : {}),
      ...(anchor ? { anchor } : {}),
    });
    // Goals: for gRPC the req/s ratio is client-co-limited and only context.
    defs.push(
      binding === 'gRPC'
        ? inj('Inject/GetTask req/s', 'reqPerSec', undefined, 'context (client-bound)')
        : inj('Inject/GetTask req/s', 'reqPerSec', { kind: 'min', target: 0.95, fail: 0.9 }),
      inj('Inject/GetTask CPU µs/req', 'serverCpuUsPerReq', {
        kind: 'max',
        target: 1.1,
        fail: 1.25,
      }),
      inj('Inject/GetTask p50', 'p50Ms', { kind: 'max', target: 1.1 }),
      inj('Inject/GetTask p99', 'p99Ms', { kind: 'max', target: 1.25 }),
    );
    if (a.stock !== undefined) {
      defs.push(
        {
          binding,
          label: 'GetTask mounted/stock req/s',
          num: a.get,
          den: a.stock,
          metric: 'reqPerSec',
          goal: { kind: 'min', target: 0.97 },
        },
        {
          binding,
          label: 'GetTask mounted/stock CPU',
          num: a.get,
          den: a.stock,
          metric: 'serverCpuUsPerReq',
          anchor: 'context',
        },
      );
    }
    defs.push(
      {
        binding,
        label: 'GetTask/no-op req/s',
        num: a.get,
        den: a.noop,
        metric: 'reqPerSec',
        anchor: ANCHORS[binding].reqPerSec,
      },
      {
        binding,
        label: 'GetTask/no-op CPU',
        num: a.get,
        den: a.noop,
        metric: 'serverCpuUsPerReq',
        anchor: ANCHORS[binding].cpu,
      },
      {
        binding,
        label: 'Inject/no-op p50',
        num: a.inject,
        den: a.noop,
        metric: 'p50Ms',
        anchor: ANCHORS[binding].injectP50VsNoop,
      },
    );
  }
  return defs;
}

export function goalText(goal: Goal): string {
  const sign = goal.kind === 'min' ? '≥' : '≤';
  const failSign = goal.kind === 'min' ? '<' : '>';
  return goal.fail === undefined
    ? `${sign} ${goal.target}`
    : `${sign} ${goal.target} (fail ${failSign} ${goal.fail})`;
}

/**
 * the goals: pass when the median meets the target; a miss short of the fail
 * threshold is a missed target, not a failure. A failure by less than the
 * run's min–max band asks for a re-run (at most 2 more) before judging,
 * unless every round failed on its own.
 */
export function verdict(goal: Goal, s: Spread): string {
  const meets = (v: number, limit: number) => (goal.kind === 'min' ? v >= limit : v <= limit);
  if (meets(s.median, goal.target)) return 'PASS';
  const failAt = goal.fail ?? goal.target;
  if (goal.fail !== undefined && meets(s.median, goal.fail)) return 'target missed (not failed)';
  const bestRound = goal.kind === 'min' ? s.max : s.min;
  if (!meets(bestRound, failAt)) return 'FAIL (every round)';
  return Math.abs(s.median - failAt) < s.max - s.min ? 'FAIL (within band: re-run)' : 'FAIL';
}

/**
 * Issue 10: InjectTaskReminder req/s with two replicas on one PostgreSQL
 * database, as a multiple of one replica's under the same load; judged on
 * the median of per-round ratios (README, Replicas).
 */
export const REPLICA_SCALING_GOAL: Goal = { kind: 'min', target: 1.6 };
