/**
 * A small seeded generator (mulberry32). Every case gets its own generator
 * seeded from (run seed, binding, case index), so a case is reproducible on
 * its own whatever the concurrency, and `--case` replays exactly one.
 */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A case's generator: independent of every other case's. */
  static forCase(seed: number, binding: string, index: number): Rng {
    let h = 2166136261 ^ (seed >>> 0);
    for (const ch of `${binding}#${index}`) {
      h = Math.imul(h ^ (ch.codePointAt(0) ?? 0), 16777619);
    }
    return new Rng(h >>> 0);
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from nothing');
    return items[this.int(0, items.length - 1)] as T;
  }

  /** Picks by weight: `[[weight, value], …]`. */
  weighted<T>(items: ReadonlyArray<readonly [number, T]>): T {
    const total = items.reduce((sum, [w]) => sum + w, 0);
    let r = this.next() * total;
    for (const [w, value] of items) {
      r -= w;
      if (r < 0) return value;
    }
    return (items.at(-1) as readonly [number, T])[1];
  }

  bytes(length: number): Uint8Array {
    const out = new Uint8Array(length);
    for (let i = 0; i < length; i += 1) out[i] = this.int(0, 255);
    return out;
  }
}
