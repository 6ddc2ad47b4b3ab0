/** Writes timestamped lines as events arrive: `[rest +1.234s] tag  text`. */
export class Timeline {
  readonly #label: string;
  readonly #write: (line: string) => void;
  readonly #start = performance.now();

  constructor(label: string, write: (line: string) => void) {
    this.#label = label;
    this.#write = write;
  }

  /** `tag` is a short word naming what happened (delegate, inject, reached, ...). */
  line(tag: string, text: string): void {
    const seconds = ((performance.now() - this.#start) / 1000).toFixed(3);
    this.#write(`[${this.#label} +${seconds}s] ${tag.padEnd(9)} ${text}`);
  }

  /** A line without a time, for headings and summaries. */
  plain(text: string): void {
    this.#write(text);
  }
}
