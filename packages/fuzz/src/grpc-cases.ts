import {
  CancelTaskReminderRequestSchema,
  InjectTaskReminderRequestSchema,
  ListTaskRemindersRequestSchema,
  reminderRpcs,
  TaskReminderSchema,
} from '@a2a-reminders/proto';
import type { JsonObject, JsonValue } from '@bufbuild/protobuf';
import { create, toBinary } from '@bufbuild/protobuf';
import type { FuzzContext, GrpcCase } from './cases.js';
import { SHARED_IDS } from './cases.js';
import {
  hostileProvenance,
  hostileString,
  reminderFieldRefusal,
  validId,
} from './hostile-values.js';
import type { Rng } from './prng.js';

const PATHS = Object.fromEntries(reminderRpcs.map((r) => [r.name, r.grpcPath])) as Record<
  'InjectTaskReminder' | 'ListTaskReminders' | 'CancelTaskReminder',
  string
>;
const URI = 'https://a2a-reminders.dev/extensions/task-reminders/v1';

/** A gRPC length-prefixed message. */
export function frame(message: Uint8Array, compressed = false, lengthDelta = 0): Uint8Array {
  const out = new Uint8Array(5 + message.length);
  out[0] = compressed ? 1 : 0;
  new DataView(out.buffer).setUint32(1, Math.max(0, message.length + lengthDelta));
  out.set(message, 5);
  return out;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function varint(n: number): number[] {
  const out: number[] = [];
  let v = BigInt.asUintN(64, BigInt(n));
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) byte |= 0x80;
    out.push(byte);
  } while (v !== 0n);
  return out;
}

/** A length-delimited field with raw bytes (e.g. invalid UTF-8 where a string belongs). */
function lengthField(field: number, bytes: Uint8Array | number[]): Uint8Array {
  const b = bytes instanceof Uint8Array ? bytes : Uint8Array.from(bytes);
  return concat(Uint8Array.from([...varint((field << 3) | 2), ...varint(b.length)]), b);
}

/**
 * A google.protobuf.Value holding `depth` nested Structs `{"a": …}` around
 * 1.0, encoded by hand in one pass (any depth, linear time).
 */
export function deepValue(depth: number): Uint8Array {
  // Sizes from the inside out: value(i) = 0x2a len struct(i); struct(i) =
  // 0x0a len entry(i); entry(i) = 0x0a 0x01 'a' 0x12 len value(i-1).
  const valueSize = [9];
  const prefixes: number[][] = [];
  for (let i = 1; i <= depth; i += 1) {
    const inner = valueSize[i - 1] as number;
    const entry = [0x0a, 0x01, 0x61, 0x12, ...varint(inner)];
    const entrySize = entry.length + inner;
    const struct = [0x0a, ...varint(entrySize)];
    const structSize = struct.length + entrySize;
    const value = [0x2a, ...varint(structSize)];
    prefixes.push([...value, ...struct, ...entry]);
    valueSize.push(value.length + structSize);
  }
  const out = new Uint8Array(valueSize[depth] as number);
  let at = 0;
  for (let i = prefixes.length - 1; i >= 0; i -= 1) {
    const p = prefixes[i] as number[];
    out.set(p, at);
    at += p.length;
  }
  out[at] = 0x11; // number_value = 2, fixed64
  new DataView(out.buffer).setFloat64(at + 1, 1, true);
  return out;
}

function metadataOf(rng: Rng): { value: JsonObject; invalid?: string } {
  // A Struct's number_value is a double: binary carries NaN and ±Infinity.
  const nonFinite = rng.pick([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]);
  return rng.weighted<() => { value: JsonObject; invalid?: string }>([
    [3, () => ({ value: { pr: 4521, labels: ['ci'], ok: true } })],
    [3, () => ({ value: { x: nonFinite }, invalid: 'non-finite number in metadata (R41)' })],
    [
      3,
      () => {
        let v: JsonValue = nonFinite;
        for (let i = rng.int(1, 30); i > 0; i -= 1) v = rng.chance(0.5) ? { a: v } : [v];
        return { value: { deep: v }, invalid: 'non-finite number deep in metadata (R41)' };
      },
    ],
    [
      2,
      () => {
        let v: JsonValue = 1;
        for (let i = rng.pick([31, 32, 33, 64, 65, 101]); i > 0; i -= 1) v = { a: v };
        return { value: { deep: v } };
      },
    ],
    [2, () => ({ value: { s: hostileString(rng) } })],
    [1, () => ({ value: { [hostileString(rng) || 'k']: 1 } })],
    [
      1,
      () => {
        const n = rng.pick([16_000, 17_000, 40_000]);
        return {
          value: { big: 'm'.repeat(n) },
          ...(n > 16_370 ? { invalid: 'metadata over maxMetadataBytes (R9)' } : {}),
        };
      },
    ],
  ])();
}

function int32(rng: Rng): number | undefined {
  return rng.pick([undefined, 1, 2, 3, 0, -1, 21, 100, 101, 2147483647, -2147483648]);
}

/** A request message, encoded: valid in shape, with hostile values in it. */
interface Message {
  readonly kind: string;
  readonly rpc: keyof typeof PATHS;
  readonly bytes: Uint8Array;
  readonly invalid?: string | undefined;
}

function message(rng: Rng, ctx: FuzzContext): Message {
  const taskId = rng.chance(0.8) ? rng.pick(ctx.taskIds) : hostileString(rng);
  return rng.weighted<() => Message>([
    [
      3,
      () => {
        const id = rng.pick(SHARED_IDS);
        const v = rng.int(0, 1);
        return {
          kind: 'valid inject (shared id)',
          rpc: 'InjectTaskReminder',
          bytes: toBinary(
            InjectTaskReminderRequestSchema,
            create(InjectTaskReminderRequestSchema, {
              taskId: rng.pick(ctx.taskIds),
              reminder: { id, body: `shared body v${v}`, dedupeKey: `k${v}`, ttlTurns: v + 1 },
            }),
          ),
        };
      },
    ],
    [
      8,
      () => {
        const ttl = int32(rng);
        const reasons: string[] = [];
        // Strings go out as UTF-8: a lone surrogate arrives as U+FFFD, so only R9/R46 apply.
        const pick = (field: string, valid: string) => {
          const v = rng.chance(0.6) ? valid : hostileString(rng).replace(/\p{Cs}/gu, '\ufffd');
          const why = reminderFieldRefusal(`reminder.${field}`, v);
          if (why !== undefined) reasons.push(why);
          return v;
        };
        if (ttl !== undefined && (ttl < 1 || ttl > 20)) reasons.push(`ttlTurns ${ttl} (R9)`);
        const metadata = rng.chance(0.5) ? metadataOf(rng) : undefined;
        if (metadata?.invalid !== undefined) reasons.push(metadata.invalid);
        return {
          kind: 'inject: hostile values',
          rpc: 'InjectTaskReminder',
          bytes: toBinary(
            InjectTaskReminderRequestSchema,
            create(InjectTaskReminderRequestSchema, {
              taskId,
              tenant: rng.chance(0.1) ? hostileString(rng).replace(/\p{Cs}/gu, '\ufffd') : '',
              reminder: {
                id: pick('id', validId(rng, ctx.unique)),
                body: pick('body', 'Upstream PR merged; rebase.'),
                dedupeKey: rng.chance(0.5) ? pick('dedupeKey', 'key') : '',
                roleHint: rng.chance(0.3) ? pick('roleHint', 'system') : '',
                source: rng.chance(0.3) ? pick('source', 'fuzzer') : '',
                ...(ttl === undefined ? {} : { ttlTurns: ttl }),
                ...(metadata === undefined ? {} : { metadata: metadata.value }),
              },
            }),
          ),
          invalid: reasons[0],
        };
      },
    ],
    [
      2,
      () => {
        const target = rng.pick(ctx.taskIds);
        const provenance = hostileProvenance(rng, target);
        // Strings go out as UTF-8: a lone surrogate arrives as U+FFFD, which R46 allows.
        const utf8 = (s: string) => s.replace(/\p{Cs}/gu, '\ufffd');
        const hops = provenance.hops.map((h) => ({
          taskId: utf8(h.taskId),
          reminderId: utf8(h.reminderId),
          source: utf8(h.source),
        }));
        const survives = provenance.hops.every(
          (h) => h.invalid === undefined || !h.invalid.startsWith('lone surrogate'),
        );
        return {
          kind: 'inject: hostile provenance',
          rpc: 'InjectTaskReminder',
          bytes: toBinary(
            InjectTaskReminderRequestSchema,
            create(InjectTaskReminderRequestSchema, {
              taskId: target,
              reminder: { id: validId(rng, ctx.unique), body: 'b', provenance: { hops } },
            }),
          ),
          // A hop refused only for a lone surrogate may be fine once sent as UTF-8: no verdict.
          invalid: survives ? provenance.invalid : undefined,
        };
      },
    ],
    [
      2,
      () => ({
        kind: 'list: odd paging',
        rpc: 'ListTaskReminders',
        bytes: toBinary(
          ListTaskRemindersRequestSchema,
          create(ListTaskRemindersRequestSchema, {
            taskId,
            ...(rng.chance(0.7) ? { pageSize: int32(rng) ?? 0 } : {}),
            pageToken: rng.chance(0.4) ? hostileString(rng) : '',
            liveOnly: rng.chance(0.3),
          }),
        ),
      }),
    ],
    [
      2,
      () => ({
        kind: 'cancel',
        rpc: 'CancelTaskReminder',
        bytes: toBinary(
          CancelTaskReminderRequestSchema,
          create(CancelTaskReminderRequestSchema, {
            taskId,
            reminderId: rng.chance(0.6) ? rng.pick(SHARED_IDS) : hostileString(rng),
          }),
        ),
      }),
    ],
    [
      1,
      () => {
        const depth = rng.pick([200, 500, 2000, 5000]);
        const reminder = concat(
          toBinary(
            TaskReminderSchema,
            create(TaskReminderSchema, { id: validId(rng, ctx.unique), body: 'b' }),
          ),
          lengthField(
            7,
            lengthField(1, concat(lengthField(1, [0x64]), lengthField(2, deepValue(depth)))),
          ),
        );
        return {
          kind: `metadata nested ${depth} deep`,
          rpc: 'InjectTaskReminder',
          bytes: concat(
            lengthField(2, new TextEncoder().encode(rng.pick(ctx.taskIds))),
            lengthField(3, reminder),
          ),
          invalid: 'metadata nested past any depth limit (R42)',
        };
      },
    ],
    [
      2,
      () => ({
        kind: 'invalid UTF-8 in a string field',
        invalid: 'invalid UTF-8 in a string field (protobuf; R43)',
        rpc: rng.pick(['InjectTaskReminder', 'ListTaskReminders', 'CancelTaskReminder'] as const),
        // field 2 is task_id in every request; field 3 the reminder (whose field 2 is body).
        bytes: concat(
          lengthField(2, rng.pick([[0xff], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0x61, 0xfe]])),
          lengthField(3, lengthField(2, [0xed, 0xb0, 0x80])),
        ),
      }),
    ],
  ])();
}

function metadataHeaders(rng: Rng): Record<string, string> {
  const headers: Record<string, string> = {};
  if (!rng.chance(0.15)) {
    headers['a2a-extensions'] = rng.pick([
      URI,
      URI,
      URI,
      '',
      ',',
      `${URI},${URI}`,
      'urn:other',
      ` ${URI}`,
    ]);
  }
  if (!rng.chance(0.15))
    headers['a2a-version'] = rng.pick(['1.0', '1.0', '1.0', '0.3', '2.0', '', 'abc']);
  if (rng.chance(0.05)) headers['grpc-timeout'] = rng.pick(['1n', '0S', '99999999H', 'abc', '-1m']);
  if (rng.chance(0.05)) headers['grpc-encoding'] = rng.pick(['gzip', 'identity', 'x-custom']);
  if (rng.chance(0.05)) headers['grpc-accept-encoding'] = rng.pick(['x-custom', '']);
  return headers;
}

/** One hostile (or, now and then, well-formed) gRPC call to the worker. */
export function grpcCase(rng: Rng, ctx: FuzzContext): GrpcCase {
  const m = message(rng, ctx);
  let path = PATHS[m.rpc];
  let kind = m.kind;
  let body: Uint8Array = frame(m.bytes);
  let oversized = false;
  let mustRefuse = m.invalid;
  const headers = metadataHeaders(rng);
  const r = rng.next();
  if (r < 0.06) {
    body = frame(rng.bytes(rng.int(0, 400)));
    kind = 'random message bytes';
    mustRefuse = undefined;
  } else if (r < 0.09) {
    body = rng.bytes(rng.int(0, 64));
    kind = 'random body bytes (no frame)';
    mustRefuse = undefined;
  } else if (r < 0.12) {
    body = frame(m.bytes.slice(0, rng.int(0, Math.max(0, m.bytes.length - 1))));
    kind = 'truncated message';
    mustRefuse = undefined;
  } else if (r < 0.14) {
    body = concat(frame(m.bytes), Uint8Array.from([0x08]));
    kind = 'trailing partial frame';
    // grpc-js reads the complete message and lets the stray byte go: no verdict.
    mustRefuse = undefined;
  } else if (r < 0.16) {
    body = frame(m.bytes, false, rng.pick([1, 100, 1 << 20, -1]));
    kind = 'frame length lies';
    mustRefuse = undefined;
  } else if (r < 0.18) {
    body = frame(m.bytes, true);
    kind = 'compressed flag without compression';
    // The gRPC spec calls this a protocol error, but grpc-js reads it leniently: no verdict.
    mustRefuse = undefined;
  } else if (r < 0.2) {
    body = concat(frame(m.bytes), frame(m.bytes));
    kind = 'two messages in a unary call';
    mustRefuse = 'two messages in a unary call';
  } else if (r < 0.21) {
    body = new Uint8Array(0);
    kind = 'no message';
    mustRefuse = 'no request message in a unary call';
  } else if (r < 0.23) {
    body = frame(Uint8Array.from([0x0a, 0x02, 0x08, 0x01, 0x12, 0x7f, 0x01]));
    kind = 'wrong wire types';
    mustRefuse = undefined;
  } else if (r < 0.25) {
    const size = rng.pick([70 * 1024, 300 * 1024]);
    body = frame(
      toBinary(
        InjectTaskReminderRequestSchema,
        create(InjectTaskReminderRequestSchema, {
          taskId: rng.pick(ctx.taskIds),
          reminder: { id: 'big', body: 'x'.repeat(size) },
        }),
      ),
    );
    kind = `oversized message (${size} bytes)`;
    oversized = true;
    mustRefuse = 'over the gRPC request limit (W3, W12)';
  } else if (r < 0.27) {
    path = rng.pick([
      '/a2a.reminders.v1.TaskReminderService/Nope',
      '/a2a.reminders.v1.TaskReminderService/injectTaskReminder',
      '/a2a.reminders.v1.Nope/InjectTaskReminder',
      '/a2a.reminders.v1.TaskReminderService/',
      '/',
    ]);
    kind = `unknown method ${path}`;
    mustRefuse = 'no such method';
  }
  return {
    kind: `grpc: ${kind}`,
    path,
    headers: {
      'content-type': rng.chance(0.97)
        ? rng.pick(['application/grpc', 'application/grpc', 'application/grpc+proto'])
        : rng.pick(['application/grpc+json', 'application/json', 'text/plain']),
      ...headers,
    },
    body,
    ...(oversized ? { oversized } : {}),
    ...(mustRefuse === undefined ? {} : { mustRefuse }),
  };
}
