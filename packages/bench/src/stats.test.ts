import { describe, expect, it } from 'vitest';
import { median, percentile, spread } from './stats.js';

describe('percentile (nearest rank)', () => {
  const hundred = Array.from({ length: 100 }, (_, i) => i + 1);

  it('picks the smallest value with p % of the values at or below it', () => {
    expect(percentile(hundred, 50)).toBe(50);
    expect(percentile(hundred, 99)).toBe(99);
    expect(percentile(hundred, 100)).toBe(100);
    expect(percentile([1, 2, 3], 50)).toBe(2);
    expect(percentile([1, 2, 3, 4], 50)).toBe(2);
  });

  it('clamps at the ends and is NaN for no values', () => {
    expect(percentile([7, 9], 0)).toBe(7);
    expect(percentile([5], 99)).toBe(5);
    expect(percentile([], 50)).toBeNaN();
  });
});

describe('median', () => {
  it('takes the middle value, or the mean of the two middle ones, in any input order', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  it('does not reorder its input', () => {
    const values = [3, 1, 2];
    median(values);
    expect(values).toEqual([3, 1, 2]);
  });
});

describe('spread', () => {
  it('gives median, min and max, ignoring non-finite values', () => {
    expect(spread([0.9, 1.2, Number.NaN, 1.0])).toEqual({ median: 1.0, min: 0.9, max: 1.2 });
  });
});
