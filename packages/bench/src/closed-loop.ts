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

/**
 * Runs `concurrency` workers, each issuing `call` back to back until
 * `durationMs` have passed (closed loop, README, What it measures). `call` throws on
 * any response that fails verification; that counts as an error.
 */
export async function closedLoop(
  call: () => Promise<void>,
  concurrency: number,
  durationMs: number,
): Promise<LoopResult> {
  const latencies: number[] = [];
  const errorSamples: string[] = [];
  let errors = 0;
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  const deadline = start + durationMs;
  const worker = async () => {
    while (performance.now() < deadline) {
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
  const requests = latencies.length;
  latencies.sort((a, b) => a - b);
  return {
    requests,
    errors,
    errorSamples,
    elapsedMs,
    reqPerSec: (requests * 1000) / elapsedMs,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    clientCpuUsPerReq: requests === 0 ? 0 : (cpu.user + cpu.system) / requests,
  };
}
