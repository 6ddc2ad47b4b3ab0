// V8's `--trace-gc-nvp` lines (one per collection, `name=value` pairs), summed over a
// measured window for gc-arms.ts (README, Where the time goes: What survives a request).

/** One collection as `--trace-gc-nvp` prints it; `pause` in ms, sizes in bytes. */
export interface GcLine {
  /** `s` (scavenge) or `mmc` (minor mark-compact) for the young generation; else a full collection. */
  readonly kind: string;
  /** The main thread's pause; helper threads and concurrent marking are not in it. */
  readonly pauseMs: number;
  /** Bytes moved to the old generation: young objects that outlived a second collection. */
  readonly promoted: number;
  /** Bytes copied within the young generation: promoted if they outlive the next one. */
  readonly survived: number;
  /** Bytes allocated since the previous collection. */
  readonly allocated: number;
}

/** The collection a `--trace-gc-nvp` line reports, or undefined for any other line. */
export function parseGcLine(line: string): GcLine | undefined {
  if (!line.includes(' pause=') || !line.includes(' gc=')) return undefined;
  const fields = new Map<string, string>();
  for (const [, name, value] of line.matchAll(/([\w.]+)=(\S+)/g)) {
    if (name !== undefined && value !== undefined) fields.set(name, value);
  }
  const kind = fields.get('gc');
  if (kind === undefined) return undefined;
  // Sizes are size_t: two collections in a row can print a wrapped "allocated".
  const size = (name: string) => {
    const value = Number(fields.get(name));
    return Number.isSafeInteger(value) && value >= 0 ? value : 0;
  };
  const pauseMs = Number(fields.get('pause'));
  return {
    kind,
    pauseMs: Number.isFinite(pauseMs) ? pauseMs : 0,
    promoted: size('promoted'),
    survived: size('new_space_survived'),
    allocated: size('allocated'),
  };
}

export function isYoungCollection(line: GcLine): boolean {
  return line.kind === 's' || line.kind === 'mmc';
}

/** A window's collections: counts for the whole window, the rest per request. */
export interface GcWindow {
  readonly youngCollections: number;
  readonly fullCollections: number;
  readonly youngPauseUsPerRequest: number;
  readonly fullPauseUsPerRequest: number;
  /** By every collection, young and full. */
  readonly promotedPerRequest: number;
  readonly survivedPerRequest: number;
  readonly allocatedPerRequest: number;
}

export function gcWindow(lines: readonly GcLine[], requests: number): GcWindow {
  const per = (total: number) => (requests > 0 ? total / requests : 0);
  const sum = (ls: readonly GcLine[], pick: (l: GcLine) => number) =>
    ls.reduce((total, l) => total + pick(l), 0);
  const young = lines.filter(isYoungCollection);
  const full = lines.filter((l) => !isYoungCollection(l));
  return {
    youngCollections: young.length,
    fullCollections: full.length,
    youngPauseUsPerRequest: per(sum(young, (l) => l.pauseMs) * 1000),
    fullPauseUsPerRequest: per(sum(full, (l) => l.pauseMs) * 1000),
    promotedPerRequest: per(sum(lines, (l) => l.promoted)),
    survivedPerRequest: per(sum(lines, (l) => l.survived)),
    allocatedPerRequest: per(sum(lines, (l) => l.allocated)),
  };
}
