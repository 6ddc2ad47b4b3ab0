import { type ArmName, BINDINGS, type Binding } from './arms.js';
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

export interface BindingArms {
  readonly get: ArmName;
  /** The mounting pair (HTTP only): stock and mounted GetTask, alternated alone. */
  readonly pair: { readonly stock: ArmName; readonly mounted: ArmName } | undefined;
  readonly inject: ArmName;
  readonly plain: ArmName;
  readonly send: ArmName;
  /** The SDK's own write beside a task (CreateTaskPushNotificationConfig), an anchor. */
  readonly sdkWrite: ArmName;
  readonly noop: ArmName;
}

const ARMS_OF: Record<Binding, BindingArms> = {
  'JSON-RPC': {
    get: 'jsonrpc-get',
    pair: { stock: 'jsonrpc-get-stock', mounted: 'jsonrpc-get-mounted' },
    inject: 'jsonrpc-inject',
    plain: 'jsonrpc-inject-plain',
    send: 'jsonrpc-send-reminder',
    sdkWrite: 'jsonrpc-push-config',
    noop: 'express-noop',
  },
  REST: {
    get: 'rest-get',
    pair: { stock: 'rest-get-stock', mounted: 'rest-get-mounted' },
    inject: 'rest-inject',
    plain: 'rest-inject-plain',
    send: 'rest-send-reminder',
    sdkWrite: 'rest-push-config',
    noop: 'express-noop',
  },
  gRPC: {
    get: 'grpc-get',
    pair: undefined,
    inject: 'grpc-inject',
    plain: 'grpc-inject-plain',
    send: 'grpc-send-reminder',
    sdkWrite: 'grpc-push-config',
    noop: 'grpc-noop',
  },
};

/** The arms a binding's ratios are computed from. */
export function armsOf(binding: Binding): BindingArms {
  return ARMS_OF[binding];
}

/** Context figures (README, Goals): GetTask/no-op req/s and CPU (gRPC: the grpc-js client row, as this load uses it). */
const ANCHORS: Record<Binding, { reqPerSec: string; cpu: string; injectP50VsNoop: string }> = {
  'JSON-RPC': { reqPerSec: '0.78', cpu: '1.27', injectP50VsNoop: '≤ ~1.5' },
  REST: { reqPerSec: '0.82', cpu: '1.15', injectP50VsNoop: '≤ ~1.5' },
  gRPC: { reqPerSec: '0.79', cpu: '1.62', injectP50VsNoop: '≤ ~1.6' },
};

/** Issue 12: an inject costs about what a read costs, displacing or not. */
const INJECT_VS_GET = {
  reqPerSec: { kind: 'min', target: 0.95, fail: 0.9 },
  serverCpuUsPerReq: { kind: 'max', target: 1.1, fail: 1.25 },
  p50Ms: { kind: 'max', target: 1.1 },
  p99Ms: { kind: 'max', target: 1.25 },
} as const satisfies Record<Metric, Goal>;

/** Issue 12: an inject serves ≥ 1.5× the req/s of the SendMessage workaround it replaces. */
const INJECT_VS_WORKAROUND: Goal = { kind: 'min', target: 1.5 };

/** Issue 12: mounting the extension costs stock GetTask ≤ 3 %, in req/s and in server CPU. */
const MOUNTED_VS_STOCK = {
  reqPerSec: { kind: 'min', target: 0.97 },
  serverCpuUsPerReq: { kind: 'max', target: 1.03 },
} as const satisfies Partial<Record<Metric, Goal>>;

const METRIC_TEXT: Record<Metric, string> = {
  reqPerSec: 'req/s',
  serverCpuUsPerReq: 'CPU µs/req',
  p50Ms: 'p50',
  p99Ms: 'p99',
};

/** The ratios of README, Goals, per binding. */
export function ratioDefs(): RatioDef[] {
  const defs: RatioDef[] = [];
  for (const binding of BINDINGS) {
    const a = ARMS_OF[binding];
    const def = (
      label: string,
      num: ArmName,
      den: ArmName,
      metric: Metric,
      judged: Goal | string,
    ): RatioDef => ({
      binding,
      label,
      num,
      den,
      metric,
      ...(typeof judged === 'string' ? { anchor: judged } : { goal: judged }),
    });
    for (const [name, arm] of [
      ['Inject (displacing)', a.inject],
      ['Inject (nothing displaced)', a.plain],
    ] as const) {
      for (const metric of ['reqPerSec', 'serverCpuUsPerReq', 'p50Ms', 'p99Ms'] as const) {
        // For gRPC the req/s ratio is client-co-limited and only context.
        const judged =
          binding === 'gRPC' && metric === 'reqPerSec'
            ? 'context (client-bound)'
            : INJECT_VS_GET[metric];
        defs.push(def(`${name}/GetTask ${METRIC_TEXT[metric]}`, arm, a.get, metric, judged));
      }
    }
    defs.push(
      def(
        'Inject (displacing)/SendMessage workaround req/s',
        a.inject,
        a.send,
        'reqPerSec',
        INJECT_VS_WORKAROUND,
      ),
      def(
        'Inject (nothing displaced)/SendMessage workaround req/s',
        a.plain,
        a.send,
        'reqPerSec',
        INJECT_VS_WORKAROUND,
      ),
      def(
        'SendMessage workaround/Inject (displacing) CPU µs/req',
        a.send,
        a.inject,
        'serverCpuUsPerReq',
        'context',
      ),
    );
    // What a write beside a task costs next to GetTask on this SDK, and the
    // non-displacing inject against it: context for the goals above.
    defs.push(
      def(
        'SDK CreateTaskPushNotificationConfig/GetTask CPU µs/req',
        a.sdkWrite,
        a.get,
        'serverCpuUsPerReq',
        'context (SDK write)',
      ),
      def(
        'SDK CreateTaskPushNotificationConfig/GetTask p50',
        a.sdkWrite,
        a.get,
        'p50Ms',
        'context (SDK write)',
      ),
      def(
        'Inject (nothing displaced)/SDK CreateTaskPushNotificationConfig CPU µs/req',
        a.plain,
        a.sdkWrite,
        'serverCpuUsPerReq',
        'context (SDK write)',
      ),
    );
    if (a.pair !== undefined) {
      defs.push(
        def(
          'GetTask mounted/stock req/s (mounting costs ≤ 3 %)',
          a.pair.mounted,
          a.pair.stock,
          'reqPerSec',
          MOUNTED_VS_STOCK.reqPerSec,
        ),
        def(
          'GetTask mounted/stock CPU µs/req (mounting costs ≤ 3 %)',
          a.pair.mounted,
          a.pair.stock,
          'serverCpuUsPerReq',
          MOUNTED_VS_STOCK.serverCpuUsPerReq,
        ),
      );
    }
    defs.push(
      def('GetTask/no-op req/s', a.get, a.noop, 'reqPerSec', ANCHORS[binding].reqPerSec),
      def('GetTask/no-op CPU µs/req', a.get, a.noop, 'serverCpuUsPerReq', ANCHORS[binding].cpu),
      def(
        'Inject (displacing)/no-op p50',
        a.inject,
        a.noop,
        'p50Ms',
        ANCHORS[binding].injectP50VsNoop,
      ),
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
  // A ratio of an arm that did not run (--arms subset) is no verdict at all.
  if (Number.isNaN(s.median)) return 'n/a';
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
