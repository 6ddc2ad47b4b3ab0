import type { Timestamp } from '@bufbuild/protobuf/wkt';
import { TimestampSchema } from '@bufbuild/protobuf/wkt';

/**
 * The Timestamp of an epoch-ms instant: what protobuf-es `timestampFromMs`
 * builds, as one literal instead of `create`'s reflection, on the path of
 * every record and event (timestamp.test.ts holds the two equal).
 */
export function timestampOfMs(ms: number): Timestamp {
  const seconds = Math.floor(ms / 1000);
  return {
    $typeName: TimestampSchema.typeName,
    seconds: BigInt(seconds),
    nanos: (ms - seconds * 1000) * 1_000_000,
  };
}
