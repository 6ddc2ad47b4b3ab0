import { describe, expect, it } from 'vitest';
import {
  allocatedByFunction,
  functionKey,
  type HeapSamplingNode,
  packageOf,
  selfTimeByFunction,
} from './profile-table.js';

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

  it("sums each function's own allocations over every stack it was on", () => {
    const node = (
      functionName: string,
      selfSize: number,
      children: HeapSamplingNode[] = [],
    ): HeapSamplingNode => ({
      callFrame: { functionName, url: 'file:///w/packages/core/dist/lifecycle.js', lineNumber: 9 },
      selfSize,
      children,
    });
    const allocated = allocatedByFunction(
      node('(root)', 0, [node('accept', 100, [node('record', 30)]), node('record', 12)]),
    );
    expect(Object.fromEntries(allocated)).toEqual({
      'accept packages/core/dist/lifecycle.js:10': 100,
      'record packages/core/dist/lifecycle.js:10': 42,
    });
  });

  it('puts each function in its package', () => {
    expect(packageOf('accept packages/core/dist/lifecycle.js:48')).toBe('packages/core');
    expect(packageOf('call nm/@grpc/grpc-js/build/src/server.js:3')).toBe('@grpc/grpc-js');
    expect(packageOf('(anonymous) nm/express/lib/router.js:10')).toBe('express');
    expect(packageOf('onStream node:internal/http2/core:2040')).toBe('node:internal/http2');
    expect(packageOf('emit node:events:470')).toBe('node:events');
    expect(packageOf('(garbage collector)')).toBe('(garbage collector)');
    expect(packageOf('structuredClone')).toBe('(native)');
    const inDependency = functionKey({
      functionName: 'f',
      url: 'file:///w/node_modules/dep/packages/inner/index.js',
      lineNumber: 0,
    });
    expect(inDependency).toBe('f nm/dep/packages/inner/index.js:1');
    expect(packageOf(inDependency)).toBe('dep');
  });
});
