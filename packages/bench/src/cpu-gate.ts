import { readFile } from 'node:fs/promises';
import { processCpuUs } from './proc-cpu.js';

const TICKS_PER_SEC = 100;

/** CPU time all processes of the machine used so far (busy fields of /proc/stat), µs. */
export async function machineBusyUs(): Promise<number> {
  const line = (await readFile('/proc/stat', 'utf8')).split('\n', 1)[0] ?? '';
  // cpu user nice system idle iowait irq softirq steal ...
  const [, user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).map(Number);
  const busy = [user, nice, system, irq, softirq, steal].reduce<number>((a, b) => a + (b ?? 0), 0);
  return (busy * 1_000_000) / TICKS_PER_SEC;
}

/** A snapshot to measure what processes other than the bench's own used since. */
export interface CpuMark {
  readonly wallMs: number;
  readonly machineUs: number;
  readonly ownUs: number;
}

/** `pids`: the bench's own children (server, load); this process counts too. */
export async function cpuMark(pids: readonly number[]): Promise<CpuMark> {
  const own = await Promise.all(pids.map((pid) => processCpuUs(pid).catch(() => 0)));
  const self = process.cpuUsage();
  return {
    wallMs: performance.now(),
    machineUs: await machineBusyUs(),
    ownUs: own.reduce((a, b) => a + b, 0) + self.user + self.system,
  };
}

/** CPU other processes used between two marks, % of one core (README, What it measures contention gate). */
export function foreignPct(from: CpuMark, to: CpuMark): number {
  const foreignUs = to.machineUs - from.machineUs - (to.ownUs - from.ownUs);
  return Math.max(0, (100 * foreignUs) / ((to.wallMs - from.wallMs) * 1000));
}

/**
 * Waits (bounded: `tries` windows of `windowMs`) until other processes use
 * less than `maxPct` % of a core; returns the last window's figure.
 */
export async function waitForQuiet(
  pids: readonly number[],
  maxPct: number,
  tries = 10,
  windowMs = 500,
): Promise<number> {
  let pct = Number.NaN;
  for (let i = 0; i < tries; i += 1) {
    const from = await cpuMark(pids);
    await new Promise((r) => setTimeout(r, windowMs));
    pct = foreignPct(from, await cpuMark(pids));
    if (pct < maxPct) break;
  }
  return pct;
}
