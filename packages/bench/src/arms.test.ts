import { describe, expect, it } from 'vitest';
import {
  ARM_NAMES,
  ARMS,
  type ArmKind,
  groupSliceScale,
  INTERLEAVED_GROUPS,
  interleavedGroup,
  interleavedOrder,
  isMountingPair,
  pairSliceText,
  roundOrder,
} from './arms.js';

describe('roundOrder', () => {
  it('runs every arm exactly once a round', () => {
    for (const round of [0, 1, 2, 3, 4, 5]) {
      expect([...roundOrder(round)].sort()).toEqual([...ARM_NAMES].sort());
    }
  });

  it('keeps each binding block as its groups, then SDK write, workaround', () => {
    const kinds = (prefix: string) =>
      roundOrder(0)
        .filter((a) => a.startsWith(prefix) && ARMS[a].kind !== 'noop')
        .map((a) => ARMS[a].kind);
    const after: ArmKind[] = ['sdk-write', 'send-reminder'];
    const http: ArmKind[] = ['get-stock', 'get', 'get', 'inject-plain', 'inject', ...after];
    expect(kinds('jsonrpc-')).toEqual(http);
    expect(kinds('rest-')).toEqual(http);
    expect(kinds('grpc-')).toEqual(['get', 'inject-plain', 'inject', ...after]);
    for (const round of [0, 1, 2, 3, 4]) {
      const order = roundOrder(round);
      const at = order.indexOf('rest-get-stock');
      expect(order.slice(at, at + 7)).toEqual([
        'rest-get-stock',
        'rest-get-mounted',
        'rest-get',
        'rest-inject-plain',
        'rest-inject',
        'rest-push-config',
        'rest-send-reminder',
      ]);
    }
  });

  it('rotates the blocks one position per round', () => {
    expect(roundOrder(0)[0]).toBe('express-noop');
    expect(roundOrder(1)[0]).toBe('jsonrpc-get-stock');
    expect(roundOrder(2)[0]).toBe('rest-get-stock');
    expect(roundOrder(3)[0]).toBe('grpc-noop');
    expect(roundOrder(4)[0]).toBe('grpc-get');
    expect(roundOrder(5)).toEqual(roundOrder(0));
  });
});

describe('interleavedOrder', () => {
  it('runs each arm of the group partsPerArm times', () => {
    for (const arms of [1, 2, 3, 4]) {
      for (const parts of [1, 2, 3, 4, 5, 16]) {
        for (const round of [0, 1]) {
          const order = interleavedOrder(parts, round, arms);
          expect(order).toHaveLength(arms * parts);
          for (let k = 0; k < arms; k += 1) {
            expect(order.filter((i) => i === k)).toHaveLength(parts);
          }
        }
      }
    }
  });

  it('goes forwards then backwards, starting backwards in odd rounds', () => {
    expect(interleavedOrder(4, 0, 2)).toEqual([0, 1, 1, 0, 0, 1, 1, 0]);
    expect(interleavedOrder(4, 3, 2)).toEqual([1, 0, 0, 1, 1, 0, 0, 1]);
    expect(interleavedOrder(2, 0, 3)).toEqual([0, 1, 2, 2, 1, 0]);
    expect(interleavedOrder(3, 1, 3)).toEqual([2, 1, 0, 0, 1, 2, 2, 1, 0]);
    expect(interleavedOrder(4, 0, 4)).toEqual([0, 1, 2, 3, 3, 2, 1, 0, 0, 2, 1, 3, 3, 1, 2, 0]);
    expect(interleavedOrder(2, 0, 1)).toEqual([0, 0]);
  });

  it('gives every arm the same mean position for an even count of parts, so a linear drift cancels', () => {
    for (const arms of [2, 3, 4]) {
      for (const parts of [2, 4, 16]) {
        for (const round of [0, 1]) {
          const order = interleavedOrder(parts, round, arms);
          const meanAt = (arm: number) =>
            order.reduce<number>((sum, a, i) => sum + (a === arm ? i : 0), 0) / parts;
          for (let k = 1; k < arms; k += 1) expect(meanAt(k)).toBe(meanAt(0));
        }
      }
    }
  });
});

describe('interleavedOrder, what each part follows', () => {
  /** For each arm, how many of its parts follow each arm (the first part follows none). */
  const predecessors = (order: number[], arms: number) => {
    const counts = Array.from({ length: arms }, () => Array<number>(arms).fill(0));
    for (let i = 1; i < order.length; i += 1) {
      const row = counts[order[i] as number] as number[];
      row[order[i - 1] as number] = (row[order[i - 1] as number] ?? 0) + 1;
    }
    return counts;
  };

  it('lets the first and the last arm of a group of three follow the same arms as often as each other', () => {
    for (const round of [0, 1, 2, 3]) {
      const [first, middle, last] = predecessors(interleavedOrder(16, round, 3), 3) as [
        number[],
        number[],
        number[],
      ];
      // GetTask (0) and the displacing inject (2) each follow the plain inject (1) in half their parts.
      expect(first[1]).toBe(8);
      expect(last[1]).toBe(8);
      // Neither ever follows the other; the rest follow themselves (the first part follows none).
      expect(first[2]).toBe(0);
      expect(last[0]).toBe(0);
      expect((first[0] ?? 0) + (last[2] ?? 0)).toBe(15);
      expect(middle).toEqual([8, 0, 8]);
    }
  });

  it('lets the first and last of four follow each inner arm as often as each other', () => {
    for (const round of [0, 1, 2, 3]) {
      const [first, second, third, last] = predecessors(interleavedOrder(16, round, 4), 4) as [
        number[],
        number[],
        number[],
        number[],
      ];
      expect([first[1], first[2], first[3]]).toEqual([4, 4, 0]);
      expect([last[1], last[2], last[0]]).toEqual([4, 4, 0]);
      expect((first[0] ?? 0) + (last[3] ?? 0)).toBe(15);
      // And each inner arm follows the first and the last as often, the other inner one in half its parts.
      expect(second).toEqual([4, 0, 8, 4]);
      expect(third).toEqual([4, 8, 0, 4]);
    }
  });

  it('lets each arm of a pair (the mounting pair) follow the other in half its parts', () => {
    for (const round of [0, 1]) {
      const [a, b] = predecessors(interleavedOrder(16, round, 2), 2) as [number[], number[]];
      expect([a[1], b[0]]).toEqual([8, 8]);
      // The rest follow themselves; the first part follows none.
      expect((a[0] ?? 0) + (b[1] ?? 0)).toBe(15);
    }
  });

  it('starts with the first arm in even rounds and the last in odd ones, never the middle one', () => {
    expect(interleavedOrder(16, 0, 3)[0]).toBe(0);
    expect(interleavedOrder(16, 1, 3)[0]).toBe(2);
  });
});

describe('interleavedGroup', () => {
  it("pairs each HTTP binding's stock and mounted GetTask alone, and groups GetTask first with the injects", () => {
    expect(INTERLEAVED_GROUPS).toEqual([
      ['jsonrpc-get-stock', 'jsonrpc-get-mounted'],
      ['jsonrpc-get', 'jsonrpc-inject-plain', 'jsonrpc-inject'],
      ['rest-get-stock', 'rest-get-mounted'],
      ['rest-get', 'rest-inject-plain', 'rest-inject'],
      ['grpc-get', 'grpc-inject-plain', 'grpc-inject'],
    ]);
    for (const group of INTERLEAVED_GROUPS) {
      for (const arm of group) expect(interleavedGroup(arm)).toBe(group);
    }
    expect(interleavedGroup('grpc-push-config')).toBeUndefined();
    expect(interleavedGroup('express-noop')).toBeUndefined();
  });

  it('keeps each group adjacent in every round, the SDK write right after the injects', () => {
    for (const group of INTERLEAVED_GROUPS) {
      const injects = group.some((arm) => ARMS[arm].kind === 'inject');
      for (const round of [0, 1, 2, 3, 4]) {
        const order = roundOrder(round);
        const at = order.indexOf(group[0] as (typeof group)[number]);
        expect(order.slice(at, at + group.length)).toEqual(group);
        const next = order[at + group.length] as (typeof group)[number];
        // The pair runs right before the group of its binding's injects.
        if (injects) expect(ARMS[next].kind).toBe('sdk-write');
        else expect(next).toBe(INTERLEAVED_GROUPS[INTERLEAVED_GROUPS.indexOf(group) + 1]?.[0]);
      }
    }
  });

  it('gives the mounting pairs twice the slice and every other group the default', () => {
    expect(INTERLEAVED_GROUPS.map(groupSliceScale)).toEqual([2, 1, 2, 1, 1]);
    expect(groupSliceScale(['rest-get-stock', 'rest-get-mounted'])).toBe(2);
    expect(groupSliceScale(['rest-get-mounted', 'rest-inject'])).toBe(1);
  });

  it('names the pairs only when one runs with both arms, in the header of the run', () => {
    const only = (arms: string[]) => (arm: string) => arms.includes(arm);
    expect(INTERLEAVED_GROUPS.map(isMountingPair)).toEqual([true, false, true, false, false]);
    expect(pairSliceText(() => true, 16)).toBe(
      " (a mounting pair's 2 times the slice, in 32 parts each)",
    );
    expect(pairSliceText(only(['rest-get-stock', 'rest-get-mounted']), 4)).toContain('in 8 parts');
    // A pair cut to one arm runs as a plain slice; other groups have no pair.
    expect(pairSliceText(only(['rest-get-stock', 'rest-get']), 16)).toBe('');
    expect(pairSliceText(only(['grpc-get', 'grpc-inject']), 16)).toBe('');
  });
});
