/**
 * Runs `job(0)` … `job(count - 1)`, started in order, with at most
 * `concurrency` in flight, so a load stays within what a small machine
 * serves. A job's failure is its own to record: one that throws fails the pool.
 */
export async function runPool(
  count: number,
  concurrency: number,
  job: (n: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < count) {
      const n = next;
      next += 1;
      await job(n);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
}
