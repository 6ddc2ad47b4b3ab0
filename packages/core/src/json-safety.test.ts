import { describe, expect, it } from 'vitest';
import { MAX_METADATA_DEPTH, metadataViolations } from './json-safety.js';

const at = (value: unknown) => metadataViolations(value, 'm').map((v) => v.field);

describe('metadata that every binding carries unchanged (R41–R43)', () => {
  it('accepts plain JSON', () => {
    expect(at({ a: [1, -0, 1e308, 'x', true, null, { b: '😀' }], '': {} })).toEqual([]);
  });

  it('R41: names the first non-finite number on its path, keys quoted when not identifiers', () => {
    expect(at({ a: 1, b: [2, Number.NaN, Number.POSITIVE_INFINITY] })).toEqual(['m.b[1]']);
    expect(at({ 'a.b': Number.NEGATIVE_INFINITY })).toEqual(['m["a.b"]']);
  });

  it('R43: lone surrogates in values and keys, each kind reported once', () => {
    expect(at({ x: '\uD800', y: '\uDC00', '\uDBFF': 1 })).toEqual(['m.x', 'm["\\udbff"]']);
  });

  it('refuses what has no JSON form and a non-object root', () => {
    expect(at({ u: undefined, f: () => 1, d: new Date(0), big: 1n })).toEqual(['m.u']);
    expect(at([])).toEqual(['m']);
    expect(at('x')).toEqual(['m']);
  });

  it('R42: counts the metadata object as level 1 and walks any depth without recursion', () => {
    const nest = (levels: number) => {
      let value: unknown = 'leaf';
      for (let i = 1; i < levels; i += 1) value = i % 2 === 0 ? { a: value } : [value];
      return { a: value };
    };
    expect(at(nest(MAX_METADATA_DEPTH))).toEqual([]);
    expect(at(nest(MAX_METADATA_DEPTH + 1))).toEqual(['m']);
    expect(at(nest(200_000))).toEqual(['m']);
  });
});
