/**
 * The p-th percentile (0–100) of values sorted ascending, nearest-rank
 * method: the smallest value with at least p % of the values at or below it.
 * NaN for an empty list.
 */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  const index = Math.min(sorted.length - 1, Math.max(0, rank - 1));
  return sorted[index] ?? Number.NaN;
}

/** Median (mean of the two middle values for an even count); NaN for an empty list. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const hi = sorted[mid] ?? Number.NaN;
  if (sorted.length % 2 === 1) return hi;
  return ((sorted[mid - 1] ?? Number.NaN) + hi) / 2;
}

export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

/** Median with min and max, as every figure of the report is given. */
export function spread(values: readonly number[]): Spread {
  const finite = values.filter((v) => Number.isFinite(v));
  return {
    median: median(finite),
    min: finite.length === 0 ? Number.NaN : Math.min(...finite),
    max: finite.length === 0 ? Number.NaN : Math.max(...finite),
  };
}
