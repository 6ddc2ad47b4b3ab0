import { timestampFromMs } from '@bufbuild/protobuf/wkt';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { timestampOfMs } from './timestamp.js';

describe('timestampOfMs', () => {
  it('builds what timestampFromMs builds, for any whole-ms instant', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: -62_135_596_800_000, max: 253_402_300_799_999 }),
          fc.constantFrom(0, -1, 999, 1000, -1000, -1001, Date.now()),
        ),
        (ms) => {
          expect(timestampOfMs(ms)).toStrictEqual(timestampFromMs(ms));
        },
      ),
      { numRuns: 500 },
    );
  });
});
