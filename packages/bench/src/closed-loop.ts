import { percentile } from './stats.js';

/** What one closed-loop run measured, as the load process reports it. */
export interface LoopResult {
  /** Requests started before the deadline (each worker finishes its last one). */
  readonly requests: number;
  readonly errors: number;
  /** Up to three error messages, for the report. */
  readonly errorSamples: string[];
  /** From the first request to the last completion. */
  readonly elapsedMs: number;
  readonly reqPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** CPU of the load process per request (user + system). */
  readonly clientCpuUsPerReq: number;
}

/** What one closed-loop run recorded, before it is summarized ({@link summarizeLoops}). */
export interface LoopSamples {
  /** Each request's latency, ms, in completion order. */
  readonly latencies: number[];
  readonly errors: number;
  readonly errorSamples: string[];
  readonly elapsedMs: number;
  /** CPU of the load process over the run (user + system), µs. */
  readonly cpuUs: number;
}

/**
 * Runs `concurrency` workers, each issuing `call` back to back until
 * `durationMs` have passed (closed loop, README, What it measures). `call` throws on
 * any response that fails verification; that counts as an error.
 * `paceReqPerSec` (a diagnostic, README, Where the time goes): the workers
 * take the call slots of a fixed schedule at that rate instead, so arms
 * whose clients differ in cost load the server at one rate; a worker
 * behind the schedule starts at once.
 */
export async function closedLoop(
  call: () => Promise<void>,
  concurrency: number,
  durationMs: number,
  paceReqPerSec = 0,
): Promise<LoopResult> {
  return summarizeLoops([await closedLoopSamples(call, concurrency, durationMs, paceReqPerSec)]);
}

/** {@link closedLoop}'s run, its samples kept so several runs can be summarized as one. */
export async function closedLoopSamples(
  call: () => Promise<void>,
  concurrency: number,
  durationMs: number,
  paceReqPerSec = 0,
): Promise<LoopSamples> {
  const latencies: number[] = [];
  const errorSamples: string[] = [];
  let errors = 0;
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  const deadline = start + durationMs;
  const nextSlot = paceSchedule(start, paceReqPerSec);
  const worker = async () => {
    while (performance.now() < deadline) {
      if (nextSlot !== undefined) {
        const slot = nextSlot();
        if (slot >= deadline) break;
        // A timer may fire up to a millisecond early: wait again until the slot.
        while (performance.now() < slot) await sleep(slot - performance.now());
      }
      const t0 = performance.now();
      try {
        await call();
      } catch (error) {
        errors += 1;
        if (errorSamples.length < 3) errorSamples.push(String(error));
      }
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsedMs = performance.now() - start;
  const cpu = process.cpuUsage(cpuStart);
  return { latencies, errors, errorSamples, elapsedMs, cpuUs: cpu.user + cpu.system };
}

/**
 * Several runs as one (the interleaved parts of a slice, README, What it
 * measures): requests and times summed, percentiles over every latency.
 */
export function summarizeLoops(runs: readonly LoopSamples[]): LoopResult {
  const latencies = runs.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const requests = latencies.length;
  const elapsedMs = runs.reduce((sum, r) => sum + r.elapsedMs, 0);
  const cpuUs = runs.reduce((sum, r) => sum + r.cpuUs, 0);
  return {
    requests,
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
    errorSamples: runs.flatMap((r) => r.errorSamples).slice(0, 3),
    elapsedMs,
    reqPerSec: (requests * 1000) / elapsedMs,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    clientCpuUsPerReq: requests === 0 ? 0 : cpuUs / requests,
  };
}

/** The start times of a paced loop's calls, one per call taken; undefined when not paced. */
export function paceSchedule(startMs: number, reqPerSec: number): (() => number) | undefined {
  if (!(reqPerSec > 0)) return undefined;
  let taken = 0;
  return () => {
    const slot = startMs + (taken * 1000) / reqPerSec;
    taken += 1;
    return slot;
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
