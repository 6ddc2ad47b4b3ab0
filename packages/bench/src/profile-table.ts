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
  const url = frame.url.replace(/^file:\/\//, '');
  // A dependency's own `packages/` folder stays the dependency's.
  const path = url.includes('/node_modules/')
    ? url.replace(/.*\/node_modules\//, 'nm/')
    : url.replace(/.*\/(packages|apps)\//, '$1/');
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

/** The parts of a V8 sampling heap profile (`HeapProfiler.stopSampling`) that allocation is read from. */
export interface HeapSamplingNode {
  readonly callFrame: CpuProfile['nodes'][number]['callFrame'];
  /** Bytes allocated by this function on this stack, as the sampler estimates them. */
  readonly selfSize: number;
  readonly children: readonly HeapSamplingNode[];
}

/**
 * Bytes allocated per function (its own allocations, over every stack it
 * was on), from a sampling heap profile taken with objects the collector
 * has since freed included, so short-lived garbage counts.
 */
export function allocatedByFunction(head: HeapSamplingNode): Map<string, number> {
  const self = new Map<string, number>();
  const pending: HeapSamplingNode[] = [head];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    if (node.selfSize > 0) {
      const key = functionKey(node.callFrame);
      self.set(key, (self.get(key) ?? 0) + node.selfSize);
    }
    pending.push(...node.children);
  }
  return self;
}

/**
 * The package a {@link functionKey} belongs to: `nm/<package>`, a workspace
 * package (`packages/core`), a node module (`node:internal/http2`); V8's own
 * entries keep their name (`(garbage collector)`), natives are `(native)`.
 */
export function packageOf(key: string): string {
  const path = / (\S+):\d+$/.exec(key)?.[1];
  if (path === undefined) return key.startsWith('(') ? key : '(native)';
  const dependency = /^nm\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1];
  if (dependency !== undefined) return dependency;
  const workspace = /^((?:packages|apps)\/[^/]+)/.exec(path)?.[1];
  if (workspace !== undefined) return workspace;
  return path.startsWith('node:') ? path.split('/').slice(0, 2).join('/') : path;
}
