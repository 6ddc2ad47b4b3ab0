import { describe, expect, it } from 'vitest';
import { gcWindow, parseGcLine } from './gc-trace.js';

// A whole scavenge line of node 20's --trace-gc-nvp, as the bench server printed it.
const scavenge =
  '[5664:0x24d0f150]    17228 ms: pause=4.0 mutator=51.3 gc=s reduce_memory=0 ' +
  'time_to_safepoint=0.00 heap.prologue=0.00 heap.epilogue=0.00 ' +
  'heap.epilogue.reduce_new_space=0.00 heap.external.prologue=0.00 ' +
  'heap.external.epilogue=0.00 heap.external_weak_global_handles=0.00 fast_promote=0.00 ' +
  'complete.sweep_array_buffers=0.00 scavenge=3.91 scavenge.free_remembered_set=0.12 ' +
  'scavenge.roots=0.04 scavenge.weak=0.00 scavenge.weak_global_handles.identify=0.00 ' +
  'scavenge.weak_global_handles.process=0.00 scavenge.parallel=3.09 ' +
  'scavenge.update_refs=0.00 scavenge.sweep_array_buffers=0.01 ' +
  'background.scavenge.parallel=6.38 background.unmapper=0.00 unmapper=0.00 ' +
  'incremental.steps_count=0 incremental.steps_took=0.0 scavenge_throughput=3381937 ' +
  'total_size_before=187110768 total_size_after=178074496 holes_size_before=16583904 ' +
  'holes_size_after=16928264 allocated=12147792 promoted=2490400 ' +
  'new_space_survived=2493904 nodes_died_in_new=0 nodes_copied_in_new=0 nodes_promoted=0 ' +
  'promotion_ratio=17.4% average_survival_ratio=34.8% promotion_rate=99.9% ' +
  'new_space_survive_rate_=17.4% new_space_allocation_throughput=222670.9 ' +
  'unmapper_chunks=0';
// Full and minor mark-compact lines, shortened to the fields read; the second full collection
// of two in a row prints a wrapped `allocated`.
const markCompact =
  '[5664:0x24d0f150]      187 ms: pause=11.0 mutator=14.4 gc=mc reduce_memory=0 ' +
  'heap.prologue=0.00 allocated=3100000 promoted=374040 new_space_survived=120000';
const wrapped =
  '[5664:0x24d0f150]      190 ms: pause=9.0 mutator=0.1 gc=mc reduce_memory=0 ' +
  'allocated=18446744073709551536 promoted=0 new_space_survived=0';
const minorMarkCompact =
  '[5664:0x24d0f150]      200 ms: pause=1.0 mutator=3.0 gc=mmc reduce_memory=0 minor_mc=0.9 ' +
  'allocated=1000000 promoted=1000 new_space_survived=2000';

describe('gc trace', () => {
  it('reads the fields of a whole line, dotted names apart from the plain ones', () => {
    expect(parseGcLine(scavenge)).toEqual({
      kind: 's',
      pauseMs: 4.0,
      promoted: 2490400,
      survived: 2493904,
      allocated: 12147792,
    });
  });

  it('reads every kind of collection, a wrapped size as 0, and nothing from other lines', () => {
    expect(parseGcLine(markCompact)).toMatchObject({ kind: 'mc', pauseMs: 11, promoted: 374040 });
    expect(parseGcLine(wrapped)?.allocated).toBe(0);
    expect(parseGcLine(minorMarkCompact)?.kind).toBe('mmc');
    expect(parseGcLine('BENCH_SERVER {"httpPort":1}')).toBeUndefined();
    expect(parseGcLine('[5664:0x24d0f150] Memory allocator, used: 1 KB')).toBeUndefined();
  });

  it('counts young and full collections apart, and sums the bytes of both per request', () => {
    const lines = [scavenge, minorMarkCompact, markCompact, wrapped].map(parseGcLine);
    const window = gcWindow(
      lines.filter((l) => l !== undefined),
      1000,
    );
    expect(window).toEqual({
      youngCollections: 2,
      fullCollections: 2,
      youngPauseUsPerRequest: 5,
      fullPauseUsPerRequest: 20,
      promotedPerRequest: (2490400 + 1000 + 374040) / 1000,
      survivedPerRequest: (2493904 + 2000 + 120000) / 1000,
      allocatedPerRequest: (12147792 + 1000000 + 3100000) / 1000,
    });
    expect(gcWindow([], 0).youngPauseUsPerRequest).toBe(0);
  });
});
