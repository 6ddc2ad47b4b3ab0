/** A random seeded task id, a fresh pick per request (README, What it measures). */
export function pick<T>(items: readonly T[]): T {
  const item = items[Math.floor(Math.random() * items.length)];
  if (item === undefined) throw new Error('no seeded tasks');
  return item;
}

/**
 * The seeded tasks in turn, from a random start. For the arms that add to a
 * task with every request (plain injects, follow-up SendMessages): every task
 * gets the same share, so the live count stays at its mean (R17 quota), and
 * with far more tasks than requests in flight, no two concurrent requests
 * address one task.
 */
export function roundRobin<T>(items: readonly T[]): () => T {
  let next = Math.floor(Math.random() * items.length);
  return () => {
    const item = items[next % items.length];
    next += 1;
    if (item === undefined) throw new Error('no seeded tasks');
    return item;
  };
}
