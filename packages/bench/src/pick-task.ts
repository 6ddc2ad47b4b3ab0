/** A random seeded task id, a fresh pick per request (README, What it measures). */
export function pick(ids: readonly string[]): string {
  const id = ids[Math.floor(Math.random() * ids.length)];
  if (id === undefined) throw new Error('no seeded tasks');
  return id;
}
