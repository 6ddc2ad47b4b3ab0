import { describe, expect, it } from 'vitest';
import { functionKey, selfTimeByFunction } from './profile-table.js';

describe('profile table', () => {
  it('gives each sample its time delta, on the function on top of the stack', () => {
    const frame = (functionName: string, url: string, lineNumber: number) => ({
      functionName,
      url,
      lineNumber,
    });
    const self = selfTimeByFunction({
      nodes: [
        { id: 1, callFrame: frame('(root)', '', -1) },
        { id: 2, callFrame: frame('accept', 'file:///w/packages/core/dist/lifecycle.js', 47) },
        { id: 3, callFrame: frame('', 'file:///w/node_modules/express/lib/router.js', 9) },
      ],
      samples: [2, 3, 2, 1],
      timeDeltas: [10, 5, 7, 1],
    });
    expect(Object.fromEntries(self)).toEqual({
      'accept packages/core/dist/lifecycle.js:48': 17,
      '(anonymous) nm/express/lib/router.js:10': 5,
      '(root)': 1,
    });
    expect(functionKey(frame('f', 'node:internal/x', 0))).toBe('f node:internal/x:1');
  });
});
