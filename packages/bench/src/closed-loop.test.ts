import { describe, expect, it } from 'vitest';
import { closedLoop, paceSchedule } from './closed-loop.js';

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
