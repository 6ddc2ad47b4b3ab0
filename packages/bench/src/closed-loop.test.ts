import { describe, expect, it } from 'vitest';
import { closedLoop, type LoopSamples, paceSchedule, summarizeLoops } from './closed-loop.js';

describe('paceSchedule', () => {
  it('hands out one slot per call, 1000 / rate ms apart from the start', () => {
    const next = paceSchedule(500, 4);
    expect(next).toBeDefined();
    expect([next?.(), next?.(), next?.(), next?.()]).toEqual([500, 750, 1000, 1250]);
  });

  it('is off for no rate, zero, a negative rate or NaN', () => {
    expect(paceSchedule(0, 0)).toBeUndefined();
    expect(paceSchedule(0, -5)).toBeUndefined();
    expect(paceSchedule(0, Number.NaN)).toBeUndefined();
  });
});

describe('closedLoop, paced', () => {
  it('starts no call before its slot: at most rate × duration calls, however fast the calls', async () => {
    const starts: number[] = [];
    const before = performance.now();
    const result = await closedLoop(
      async () => {
        starts.push(performance.now());
      },
      4,
      300,
      200,
    );
    // Slots before the deadline: 0, 5, …, 295 ms, i.e. 60. A slower machine makes fewer.
    expect(result.requests).toBe(starts.length);
    expect(starts.length).toBeGreaterThanOrEqual(1);
    expect(starts.length).toBeLessThanOrEqual(60);
    expect(result.errors).toBe(0);
    // The loop's start is at or after `before`, so call k starts at or after before + 5k ms.
    const late = starts.sort((a, b) => a - b).filter((t, k) => t < before + k * 5);
    expect(late).toEqual([]);
  });

  it('draws no slot past the deadline: a worker whose next slot is later stops at once', async () => {
    // At 0.1 calls a second the second slot is 10 s after the start: a worker
    // that waited for it would keep the loop running 10 s past its 50 ms.
    const result = await closedLoop(async () => {}, 4, 50, 0.1);
    expect(result.requests).toBe(1);
    expect(result.elapsedMs).toBeLessThan(10_000);
  });
});

describe('summarizeLoops', () => {
  const run = (latencies: number[], elapsedMs: number, errors = 0, cpuUs = 0): LoopSamples => ({
    latencies,
    errors,
    errorSamples: Array.from({ length: errors }, (_, i) => `e${elapsedMs}-${i}`),
    elapsedMs,
    cpuUs,
  });

  it('sums requests, time and CPU and takes percentiles over every latency', () => {
    // 100 latencies 1..100 split unevenly over two runs, out of order.
    const all = Array.from({ length: 100 }, (_, i) => i + 1);
    const result = summarizeLoops([
      run(all.filter((v) => v % 3 === 0).reverse(), 1000, 0, 600),
      run(
        all.filter((v) => v % 3 !== 0),
        3000,
        2,
        1400,
      ),
    ]);
    expect(result.requests).toBe(100);
    expect(result.elapsedMs).toBe(4000);
    expect(result.reqPerSec).toBe(25);
    expect(result.p50Ms).toBe(50);
    expect(result.p99Ms).toBe(99);
    expect(result.clientCpuUsPerReq).toBe(20);
    expect(result.errors).toBe(2);
    expect(result.errorSamples).toEqual(['e3000-0', 'e3000-1']);
  });

  it('keeps at most three error samples however many runs had errors', () => {
    const result = summarizeLoops([run([1, 2], 10, 2), run([3, 4], 10, 2)]);
    expect(result.errors).toBe(4);
    expect(result.errorSamples).toEqual(['e10-0', 'e10-1', 'e10-0']);
  });

  it("is one run's own figures for one run, as closedLoop reports it", async () => {
    const result = await closedLoop(async () => {}, 2, 20);
    expect(result.requests).toBeGreaterThan(0);
    expect(result.reqPerSec).toBeCloseTo((result.requests * 1000) / result.elapsedMs, 9);
    expect(summarizeLoops([run([5, 1, 3], 2000, 0, 30)])).toMatchObject({
      requests: 3,
      reqPerSec: 1.5,
      p50Ms: 3,
      p99Ms: 5,
      clientCpuUsPerReq: 10,
    });
  });
});
