import type { ArmName } from './arms.js';
import type { LoopResult } from './closed-loop.js';

/** One measured slice: the load process's figures plus the server's CPU over it. */
export interface SliceResult extends LoopResult {
  readonly arm: ArmName;
  readonly round: number;
  /** Server CPU (all threads) per request, µs. */
  readonly serverCpuUsPerReq: number;
  /** Server CPU over the slice, % of one core. */
  readonly serverCpuPct: number;
  /** CPU other processes used during the slice, % of one core. */
  readonly foreignCpuPct: number;
  /** Measured slices of this arm and round (more than 1 when contention forced a re-run). */
  readonly attempts: number;
}

export type Metric = 'reqPerSec' | 'p50Ms' | 'p99Ms' | 'serverCpuUsPerReq';

/** Slices by arm, in round order. */
export type Results = Map<ArmName, SliceResult[]>;
