/**
 * Reads `turbo run build --json` (one JSON object a line: `source` is
 * `turbo` or a task id such as `@a2a-reminders/core#build`, `text` is one
 * line of its output) and turns it into what a person at the root npm
 * scripts wants to see: nothing when every task came from the cache, the name
 * of each task as it starts when something has to be built, and the failing
 * tasks' own output when the build fails. Turbo's banner and summary are
 * printed only on failure.
 */
export class TurboBuildLog {
  /** @type {(line: string) => void} */
  #write;
  /** @type {readonly string[]} */
  #packages;
  /** Each task seen, in order of its first line: whether it came from the cache, and its output. */
  #tasks = new Map();
  /** Turbo's own lines: `{ level, text }`. */
  #turbo = [];
  /** @type {number | undefined} */
  #firstAt;
  /** @type {number | undefined} */
  #lastAt;
  #run = 0;

  /**
   * @param {(line: string) => void} write where progress lines go, as they happen
   * @param {readonly string[]} packages the packages being built, for the first progress line
   */
  constructor(write, packages = []) {
    this.#write = write;
    this.#packages = packages;
  }

  /** @param {string} line one line of turbo's `--json` output */
  take(line) {
    let entry;
    try {
      entry = JSON.parse(line);
    } catch {
      this.#turbo.push({ level: 'info', text: line });
      return;
    }
    if (typeof entry?.source !== 'string' || typeof entry.text !== 'string') return;
    if (typeof entry.timestamp === 'number') {
      this.#firstAt ??= entry.timestamp;
      this.#lastAt = entry.timestamp;
    }
    if (entry.source === 'turbo') {
      this.#turbo.push({ level: entry.level, text: entry.text });
      return;
    }
    const task = this.#tasks.get(entry.source);
    if (task !== undefined) {
      task.lines.push(entry.text);
      return;
    }
    // A task's first line is turbo's verdict on its cache: `cache hit, replaying logs …`
    // or `cache miss, executing …`.
    const cached = entry.text.startsWith('cache hit');
    this.#tasks.set(entry.source, {
      cached,
      lines: entry.text.startsWith('cache ') ? [] : [entry.text],
    });
    if (cached) return;
    if (this.#run === 0) {
      const what = this.#packages.length > 0 ? `${this.#packages.join(' and ')} ` : '';
      this.#write(`building ${what}with turbo (a first build takes a minute or two)`);
    }
    this.#run += 1;
    this.#write(`  ${entry.source}`);
  }

  /**
   * The closing lines once turbo exited: none when nothing was built, one
   * when the build ran and passed, and the failing tasks' output (or every
   * task's that ran, when turbo names none) when it failed.
   *
   * @param {number} exitCode turbo's exit code
   * @returns {string[]}
   */
  finish(exitCode) {
    const tasks = [...this.#tasks];
    const cached = tasks.filter(([, t]) => t.cached).length;
    if (exitCode === 0) {
      if (this.#run === 0) return [];
      const seconds = ((this.#lastAt ?? 0) - (this.#firstAt ?? 0)) / 1000;
      return [
        `built ${this.#run} of ${tasks.length} tasks in ${seconds.toFixed(1)} s (${cached} from the cache)`,
      ];
    }
    const named = this.#turbo.flatMap(({ text }) => {
      const failed = /^\s*Failed:\s+(\S+)/.exec(text);
      return failed?.[1] === undefined ? [] : [failed[1]];
    });
    const shown =
      named.length > 0 ? named : tasks.filter(([, t]) => !t.cached).map(([name]) => name);
    const lines = [
      `build failed (turbo exited ${exitCode})${named.length > 0 ? `: ${named.join(', ')}` : ''}`,
    ];
    for (const name of shown) {
      lines.push(`-- ${name}`, ...(this.#tasks.get(name)?.lines ?? []));
    }
    lines.push(...this.#turbo.filter(({ level }) => level === 'error').map(({ text }) => text));
    return lines;
  }
}
