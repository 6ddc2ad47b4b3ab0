/** The parts of a V8 `.cpuprofile` that self time is read from. */
export interface CpuProfile {
  readonly nodes: readonly {
    readonly id: number;
    readonly callFrame: {
      readonly functionName: string;
      readonly url: string;
      readonly lineNumber: number;
    };
  }[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** A function as `name path:line`, paths shortened to the package (`nm/` for node_modules). */
export function functionKey(frame: CpuProfile['nodes'][number]['callFrame']): string {
  const name = frame.functionName || '(anonymous)';
  if (frame.url === '') return name;
  const path = frame.url
    .replace(/^file:\/\//, '')
    .replace(/.*\/node_modules\//, 'nm/')
    .replace(/.*\/(packages|apps)\//, '$1/');
  return `${name} ${path}:${frame.lineNumber + 1}`;
}

/**
 * Self time per function in µs: each sample's time delta goes to the
 * function on top of the stack (V8 gives the delta since the previous
 * sample with each sample).
 */
export function selfTimeByFunction(profile: CpuProfile): Map<string, number> {
  const keyOf = new Map(profile.nodes.map((n) => [n.id, functionKey(n.callFrame)]));
  const self = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const key = keyOf.get(id) ?? '(unknown)';
    self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  return self;
}
