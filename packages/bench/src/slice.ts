import type { ArmName } from './arms.js';
import type { LoopResult } from './closed-loop.js';
import type { FollowUpHistory } from './follow-up-pool.js';

/** One measured slice: the load process's figures plus the server's CPU over it. */
export interface SliceResult extends LoopResult {
  readonly arm: ArmName;
  readonly round: number;
  /** Server CPU (all threads) per request, µs. */
  readonly serverCpuUsPerReq: number;
  /** The server's main (JS) thread's share of it; the rest ran on helper threads (GC, compilation, libuv). */
  readonly serverMainCpuUsPerReq: number;
  /** Server CPU over the slice, % of one core. */
  readonly serverCpuPct: number;
  /** CPU other processes used during the slice, % of one core. */
  readonly foreignCpuPct: number;
  /** Measured slices of this arm and round (more than 1 when contention forced a re-run). */
  readonly attempts: number;
  /** An arm measured in an interleaved group (interleaved-slice.ts): the others, its parts, and how many were re-run. */
  readonly interleaved?: {
    readonly with: readonly ArmName[];
    readonly parts: number;
    readonly partsRerun: number;
  };
  /** Plain inject arms: the most live reminders one task held when the warm-up or the slice ended. */
  readonly maxLiveReminders?: number;
  /** Plain inject arms: plain reminders the sweeps after warm-up and slice left live (0 expected). */
  readonly plainLeft?: number;
  /**
   * Displacing inject arms: the part of `serverCpuUsPerReq` spent publishing
   * the displacement events that waited through the slice (R57), in status
   * updates that the A2A server handles (R30), not the extension.
   */
  readonly publishCpuUsPerReq?: number;
  /** SendMessage workaround arms: its tasks' stored histories when the slice ended. */
  readonly followUpHistory?: FollowUpHistory;
}

export type Metric = 'reqPerSec' | 'p50Ms' | 'p99Ms' | 'serverCpuUsPerReq';

/** Slices by arm, in round order. */
export type Results = Map<ArmName, SliceResult[]>;
