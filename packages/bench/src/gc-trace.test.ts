import { describe, expect, it } from 'vitest';
import { gcPerRequest, parseGcLine } from './gc-trace.js';

// Shortened from real lines of node 20's --trace-gc-nvp (the fields read here, in V8's order).
const scavenge =
  '[5664:0x24d0f150]     3795 ms: pause=2.5 mutator=31.4 gc=s reduce_memory=0 ' +
  'time_to_safepoint=0.00 scavenge=2.31 total_size_before=95825464 allocated=12096880 ' +
  'promoted=2598032 new_space_survived=2682384 nodes_died_in_new=7 promotion_ratio=17.4%';
const markCompact =
  '[5664:0x24d0f150]     4102 ms: pause=11.0 mutator=120.2 gc=mc reduce_memory=0 ' +
  'time_to_safepoint=0.01 mark=6.1 allocated=3100000 promoted=0 new_space_survived=0';

describe('gc trace', () => {
  it('reads a scavenge and a full collection, and nothing from other lines', () => {
    expect(parseGcLine(scavenge)).toEqual({
      kind: 's',
      pauseMs: 2.5,
      promoted: 2598032,
      survived: 2682384,
      allocated: 12096880,
    });
    expect(parseGcLine(markCompact)?.kind).toBe('mc');
    expect(parseGcLine('BENCH_SERVER {"httpPort":1}')).toBeUndefined();
    expect(parseGcLine('[5664:0x24d0f150] Memory allocator, used: 1 KB')).toBeUndefined();
  });

  it('sums per request, scavenges and full collections apart', () => {
    const lines = [scavenge, scavenge, markCompact].map((l) => parseGcLine(l));
    const parsed = lines.filter((l) => l !== undefined);
    expect(gcPerRequest(parsed, 1000)).toEqual({
      scavenges: 2,
      scavengeUs: 5,
      promotedBytes: 5196.064,
      survivedBytes: 5364.768,
      allocatedBytes: 27293.76,
      fullCollections: 1,
      fullCollectionUs: 11,
    });
    expect(gcPerRequest([], 0).scavengeUs).toBe(0);
  });
});
