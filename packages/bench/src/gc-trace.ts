// V8's `--trace-gc-nvp` lines (one per collection, `name=value` pairs), summed over a
// measured window for gc-arms.ts (README, Where the time goes: What survives a request).

/** One collection as `--trace-gc-nvp` prints it; `pause` in ms, sizes in bytes. */
export interface GcLine {
  /** `s` for a scavenge, `mc`/`mmc` for a full (mark-compact) collection. */
  readonly kind: string;
  readonly pauseMs: number;
  /** Bytes the scavenge moved to the old generation (0 for a full collection's own line). */
  readonly promoted: number;
  /** Bytes of young objects alive after it, promoted ones included. */
  readonly survived: number;
  /** Bytes allocated since the previous collection. */
  readonly allocated: number;
}

/** The collection a `--trace-gc-nvp` line reports, or undefined for any other line. */
export function parseGcLine(line: string): GcLine | undefined {
  if (!line.includes(' pause=') || !line.includes(' gc=')) return undefined;
  const fields = new Map<string, string>();
  for (const match of line.matchAll(/(\w+)=(\S+)/g)) {
    const [, name, value] = match;
    // The first of a name wins: later fields never reuse these names, but be safe.
    if (name !== undefined && value !== undefined && !fields.has(name)) fields.set(name, value);
  }
  const number = (name: string) => {
    const value = Number(fields.get(name) ?? Number.NaN);
    return Number.isFinite(value) ? value : 0;
  };
  const kind = fields.get('gc');
  if (kind === undefined) return undefined;
  return {
    kind,
    pauseMs: number('pause'),
    promoted: number('promoted'),
    survived: number('new_space_survived'),
    allocated: number('allocated'),
  };
}

/** A window's collections per request: scavenges and full collections apart. */
export interface GcPerRequest {
  readonly scavenges: number;
  readonly scavengeUs: number;
  readonly promotedBytes: number;
  readonly survivedBytes: number;
  readonly allocatedBytes: number;
  readonly fullCollections: number;
  readonly fullCollectionUs: number;
}

export function gcPerRequest(lines: readonly GcLine[], requests: number): GcPerRequest {
  const per = (total: number) => (requests > 0 ? total / requests : 0);
  const scavenges = lines.filter((l) => l.kind === 's');
  const full = lines.filter((l) => l.kind !== 's');
  const sum = (ls: readonly GcLine[], pick: (l: GcLine) => number) =>
    ls.reduce((total, l) => total + pick(l), 0);
  return {
    scavenges: scavenges.length,
    scavengeUs: per(sum(scavenges, (l) => l.pauseMs) * 1000),
    promotedBytes: per(sum(scavenges, (l) => l.promoted)),
    survivedBytes: per(sum(scavenges, (l) => l.survived)),
    allocatedBytes: per(sum(lines, (l) => l.allocated)),
    fullCollections: full.length,
    fullCollectionUs: per(sum(full, (l) => l.pauseMs) * 1000),
  };
}
