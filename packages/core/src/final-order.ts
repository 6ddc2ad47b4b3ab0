/**
 * R48: the ids of a task's final records in the order they became final,
 * oldest first, as a queue: an array and the index of its oldest entry, so
 * a purge takes the oldest at once, amortized O(1) per id.
 */
export class FinalOrder {
  private ids: string[] = [];
  private head = 0;

  get size(): number {
    return this.ids.length - this.head;
  }

  /** A record that just became final. */
  push(id: string): void {
    this.ids.push(id);
  }

  /** Undoes the last {@link push}. */
  pop(): void {
    this.ids.pop();
  }

  /** The `i`-th oldest id (0: the oldest). */
  at(i: number): string | undefined {
    return this.ids[this.head + i];
  }

  /** Drops the `n` oldest ids; `n` is a whole number from 0 to {@link size}. */
  dropOldest(n: number): void {
    this.head += n;
    // Compact once the dropped ids outnumber the kept ones (and 32): each copy
    // moves fewer ids than were dropped since the last one.
    if (this.head > 32 && this.head * 2 > this.ids.length) {
      this.ids = this.ids.slice(this.head);
      this.head = 0;
    }
  }

  /** Undoes a {@link dropOldest}: `oldest` go back in front, in their order. */
  restoreOldest(oldest: readonly string[]): void {
    this.ids = [...oldest, ...this.ids.slice(this.head)];
    this.head = 0;
  }
}
