/** A random seeded task id, a fresh pick per request (perf-baseline §1). */
export function pick(ids: readonly string[]): string {
  const id = ids[Math.floor(Math.random() * ids.length)];
  if (id === undefined) throw new Error('no seeded tasks');
  return id;
}
