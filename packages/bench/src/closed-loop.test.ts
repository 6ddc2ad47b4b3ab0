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
    let calls = 0;
    const result = await closedLoop(
      async () => {
        calls += 1;
      },
      4,
      300,
      200,
    );
    // Slots before the deadline: 0, 5, …, 295 ms, i.e. 60. A slower machine makes fewer.
    expect(result.requests).toBe(calls);
    expect(calls).toBeGreaterThanOrEqual(1);
    expect(calls).toBeLessThanOrEqual(60);
    expect(result.errors).toBe(0);
  });
});
