import type { FuzzContext, HttpCase } from './cases.js';
import { SHARED_IDS } from './cases.js';
import { contentType, GOOD_PARAMS, serviceParams, transportHeaders } from './headers.js';
import {
  hostileMetadata,
  hostileProvenance,
  hostileReminder,
  hostileString,
  hostileTtl,
  str,
  taskIdText,
  validId,
  wrongType,
} from './hostile-values.js';
import type { Rng } from './prng.js';

const PATH = '/a2a/jsonrpc';
const RPCS = ['InjectTaskReminder', 'ListTaskReminders', 'CancelTaskReminder'] as const;

/** The body over the binding's limit (W12): well past any sane limit, under a few MiB. */
const OVERSIZED = [70 * 1024, 110 * 1024, 1024 * 1024];

interface Params {
  readonly kind: string;
  readonly method: string;
  /** JSON text of `params`, or undefined to leave the member out. */
  readonly params: string | undefined;
  /** Why the spec refuses these params, when it certainly does. */
  readonly invalid?: string | undefined;
}

function validParams(rng: Rng, ctx: FuzzContext): Params {
  const taskId = str(rng.pick(ctx.taskIds));
  return rng.weighted<() => Params>([
    [
      3,
      () => {
        // A shared id with one of two contents: replays (R13) and conflicts (R14).
        const id = rng.pick(SHARED_IDS);
        const variant = rng.int(0, 1);
        return {
          kind: 'valid inject (shared id)',
          method: 'InjectTaskReminder',
          params: `{"taskId":${taskId},"reminder":{"id":${str(id)},"body":${str(`shared body v${variant}`)},"dedupeKey":${str(`k${variant}`)},"ttlTurns":${variant + 1}}}`,
        };
      },
    ],
    [
      2,
      () => ({
        kind: 'valid inject (fresh id)',
        method: 'InjectTaskReminder',
        params: `{"taskId":${taskId},"reminder":{"id":${str(validId(rng, ctx.unique))},"body":"CI run 88 is green.","metadata":{"run":88}}}`,
      }),
    ],
    [
      2,
      () => ({
        kind: 'valid list',
        method: 'ListTaskReminders',
        params: `{"taskId":${taskId}${rng.chance(0.5) ? `,"pageSize":${rng.int(1, 100)}` : ''}${rng.chance(0.3) ? ',"liveOnly":true' : ''}}`,
      }),
    ],
    [
      2,
      () => ({
        kind: 'valid cancel',
        method: 'CancelTaskReminder',
        params: `{"taskId":${taskId},"reminderId":${str(rng.pick(SHARED_IDS))}}`,
      }),
    ],
  ])();
}

function hostileParams(rng: Rng, ctx: FuzzContext): Params {
  return rng.weighted<() => Params>([
    [
      8,
      () => {
        const reminder = hostileReminder(rng, ctx.unique);
        return {
          kind: 'inject: hostile reminder',
          method: 'InjectTaskReminder',
          params: `{"taskId":${taskIdText(rng, ctx.taskIds)},"reminder":${reminder.text}}`,
          invalid: reminder.invalid,
        };
      },
    ],
    [
      2,
      () => {
        const metadata = hostileMetadata(rng);
        return {
          kind: 'inject: hostile metadata',
          method: 'InjectTaskReminder',
          params: `{"taskId":${str(rng.pick(ctx.taskIds))},"reminder":{"id":${str(validId(rng, ctx.unique))},"body":"b","metadata":${metadata.text}}}`,
          invalid: metadata.invalid,
        };
      },
    ],
    [
      2,
      () => {
        const taskId = rng.pick(ctx.taskIds);
        const provenance = hostileProvenance(rng, taskId);
        // Lone surrogates go out as JSON escapes here: the reader reports them (R43).
        const hops = provenance.hops.map(({ invalid: _, ...hop }) => hop);
        return {
          kind: 'inject: hostile provenance',
          method: 'InjectTaskReminder',
          params: `{"taskId":${str(taskId)},"reminder":{"id":${str(validId(rng, ctx.unique))},"body":"b","provenance":{"hops":${JSON.stringify(hops)}}}}`,
          invalid: provenance.invalid,
        };
      },
    ],
    [
      2,
      () => {
        const ttl = hostileTtl(rng);
        return {
          kind: 'inject: odd ttlTurns',
          method: 'InjectTaskReminder',
          params: `{"taskId":${str(rng.pick(ctx.taskIds))},"reminder":{"id":${str(validId(rng, ctx.unique))},"body":"b","ttlTurns":${ttl.text}}}`,
          invalid: ttl.invalid,
        };
      },
    ],
    [
      1,
      () => ({
        kind: 'inject: every field wrong at once (R8)',
        method: 'InjectTaskReminder',
        params: `{"taskId":${str(rng.pick(ctx.taskIds))},"reminder":{"id":"bad id","body":"","ttlTurns":"x","dedupeKey":${wrongType(rng)}}}`,
        invalid: 'bad id, blank body, ttlTurns "x" (R8, R9)',
      }),
    ],
    [
      2,
      () => ({
        kind: 'non-object params',
        method: rng.pick(RPCS),
        params: rng.pick(['[]', '[{"taskId":"t"}]', '"params"', '42', 'null', 'true', '""']),
        invalid: 'params that are not an object',
      }),
    ],
    [
      1,
      () => ({
        kind: 'params missing',
        method: rng.pick(RPCS),
        params: undefined,
        invalid: 'no params (taskId required, R9)',
      }),
    ],
    [
      1,
      () => ({
        kind: 'empty params',
        method: rng.pick(RPCS),
        params: '{}',
        invalid: 'no taskId (R9)',
      }),
    ],
    [
      2,
      () => ({
        kind: 'list: odd paging',
        method: 'ListTaskReminders',
        params: `{"taskId":${str(rng.pick(ctx.taskIds))},"pageSize":${hostileTtl(rng).text},"pageToken":${rng.chance(0.5) ? str(hostileString(rng)) : wrongType(rng)},"liveOnly":${rng.pick(['"maybe"', '1', '"true"', 'null', '[]'])}}`,
      }),
    ],
    [
      2,
      () => ({
        kind: 'cancel: hostile ids',
        method: 'CancelTaskReminder',
        params: `{"taskId":${taskIdText(rng, ctx.taskIds)},"reminderId":${rng.chance(0.7) ? str(hostileString(rng)) : wrongType(rng)}}`,
      }),
    ],
    [
      1,
      () => ({
        kind: 'unknown fields and tenant',
        method: rng.pick(RPCS),
        params: `{"taskId":${str(rng.pick(ctx.taskIds))},"tenant":${rng.chance(0.5) ? str(hostileString(rng)) : wrongType(rng)},"reminderId":"x","reminder":{"id":"u1","body":"b"},${str(hostileString(rng) || 'extra')}:${wrongType(rng)}}`,
      }),
    ],
  ])();
}

/** JSON text of the request `id` member (undefined: a notification). */
function idText(rng: Rng): string | undefined {
  return rng.weighted<() => string | undefined>([
    [10, () => String(rng.int(1, 1_000_000))],
    [2, () => str(`req-${rng.int(0, 999)}`)],
    [1, () => 'null'],
    [1, () => rng.pick(['1.5', '-1', '1e309', '{}', '[]', 'true', '"\\ud800"'])],
    [1, () => undefined],
  ])();
}

function envelope(
  rng: Rng,
  p: Params,
): { text: string; notification: boolean; kind: string; invalid: string | undefined } {
  const id = idText(rng);
  let jsonrpc = '"jsonrpc":"2.0"';
  let method = `"method":${str(p.method)}`;
  let kind = p.kind;
  if (rng.chance(0.08)) {
    jsonrpc = rng.pick(['"jsonrpc":"1.0"', '"jsonrpc":2', '"jsonrpc":null', '']);
    kind = 'bad jsonrpc member';
  }
  if (rng.chance(0.08)) {
    method = `"method":${rng.pick([
      str(p.method.toLowerCase()),
      str(`${p.method} `),
      str(`${p.method}\u0000`),
      str('tasks/send'),
      str('GetTask'),
      str('rpc.discover'),
      str('__proto__'),
      str(hostileString(rng)),
      '42',
      'null',
      '["InjectTaskReminder"]',
    ])}`;
    kind = 'odd method';
  }
  const members = [jsonrpc, id === undefined ? '' : `"id":${id}`, method];
  if (p.params !== undefined) members.push(`"params":${p.params}`);
  const text = `{${members.filter((m) => m !== '').join(',')}}`;
  // W11 binds our methods: a request to one of them without an id gets no body.
  const notification =
    id === undefined &&
    jsonrpc === '"jsonrpc":"2.0"' &&
    (RPCS as readonly string[]).some((m) => method === `"method":${str(m)}`);
  let json = true;
  try {
    JSON.parse(text);
  } catch {
    json = false;
  }
  if (!json) {
    // Not JSON (NaN, 0x10, undefined…): a parse error, whatever else it holds (W3).
    return { text, notification, kind: `${kind} (not JSON)`, invalid: 'malformed JSON (W3)' };
  }
  return {
    text,
    notification,
    kind: id === undefined ? `${kind} (notification)` : kind,
    invalid: kind === p.kind ? p.invalid : undefined,
  };
}

/** Bytes that are not a JSON-RPC request at all. */
function brokenBody(rng: Rng, valid: string): { kind: string; body: string | Uint8Array } {
  // Into the body's string, else the method's, else ahead of the text: never the valid request itself.
  const slip = (bad: string) => {
    const into = ['"body":"', '"method":"'].find((at) => valid.includes(at));
    return into === undefined ? `${bad}${valid}` : valid.replace(into, `${into}${bad}`);
  };
  return rng.weighted<() => { kind: string; body: string | Uint8Array }>([
    [2, () => ({ kind: 'truncated JSON', body: valid.slice(0, rng.int(0, valid.length - 1)) })],
    [1, () => ({ kind: 'empty body', body: '' })],
    [1, () => ({ kind: 'BOM before JSON', body: `\ufeff${valid}` })],
    [
      1,
      () => ({
        kind: 'raw control character in JSON',
        body: slip('\u0001'),
      }),
    ],
    [1, () => ({ kind: 'invalid escape', body: slip('\\q') })],
    [2, () => ({ kind: 'random bytes', body: rng.bytes(rng.int(1, 300)) })],
    [
      1,
      () => ({
        kind: 'invalid UTF-8',
        body: Buffer.concat([
          Buffer.from(valid.slice(0, 40)),
          Buffer.from([0xff, 0xfe, 0xc3]),
          Buffer.from(valid.slice(40)),
        ]),
      }),
    ],
    [1, () => ({ kind: 'JSON scalar body', body: rng.pick(['null', '42', '"x"', 'true']) })],
    [
      1,
      () => ({
        kind: 'batch',
        body: rng.pick(['[]', `[${valid}]`, `[${valid},${valid}]`, '[1,2]', '[[]]']),
      }),
    ],
    [
      1,
      () => ({ kind: 'deeply nested body', body: `${'['.repeat(rng.pick([100, 1000, 50_000]))}` }),
    ],
  ])();
}

/** One hostile (or, now and then, well-formed) JSON-RPC request to the worker. */
export function jsonRpcCase(rng: Rng, ctx: FuzzContext): HttpCase {
  const params = rng.chance(0.2) ? validParams(rng, ctx) : hostileParams(rng, ctx);
  const env = envelope(rng, params);
  let headers: Record<string, string> = {
    ...contentType(rng),
    ...serviceParams(rng),
    ...transportHeaders(rng),
  };
  let body: string | Uint8Array = env.text;
  let kind = env.kind;
  let notification = env.notification;
  let silentOk = false;
  let oversized = false;
  let method = 'POST';
  let path = PATH;
  let mustRefuse = env.invalid;
  const r = rng.next();
  if (r < 0.1) {
    const broken = brokenBody(rng, env.text);
    body = broken.body;
    kind = broken.kind;
    // JSON may start with a BOM (RFC 8259 lets a parser ignore it): the same request.
    notification = env.notification && broken.kind === 'BOM before JSON';
    // A batch of notifications gets no answer at all (JSON-RPC 2.0 §6).
    silentOk = env.notification && broken.kind === 'batch';
    // A BOM, a batch and replaced invalid bytes may all still read as a request,
    // and a replacement that found nothing to replace left the request as it was.
    mustRefuse =
      ['BOM before JSON', 'batch', 'invalid UTF-8', 'random bytes'].includes(broken.kind) ||
      broken.body === env.text
        ? undefined
        : `${broken.kind}: not a request`;
  } else if (r < 0.13) {
    const size = rng.pick(OVERSIZED);
    body = `{"jsonrpc":"2.0","id":1,"method":"InjectTaskReminder","params":{"taskId":"t","reminder":{"id":"big","body":${str('x'.repeat(size))}}}}`;
    kind = `oversized body (${size} bytes)`;
    headers = { 'Content-Type': 'application/json', ...GOOD_PARAMS };
    notification = false;
    oversized = true;
    mustRefuse = 'over the body limit (W12)';
  } else if (r < 0.16) {
    method = rng.pick(['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD']);
    path = rng.pick([PATH, `${PATH}/`, `${PATH}/x`, `${PATH}?q=%zz`, `${PATH}/%zz`]);
    kind = `${method} ${path}`;
    notification = false;
    mustRefuse = undefined;
    if (method === 'GET' || method === 'HEAD') body = '';
  }
  // Only a body the server can read as JSON is known to be a notification;
  // another content type or encoding gets the envelope's error (W3).
  const type = (headers['Content-Type'] ?? '').toLowerCase().replace(/\s/g, '');
  if (
    !['application/json', 'application/json;charset=utf-8'].includes(type) ||
    'Content-Encoding' in headers
  ) {
    notification = false;
    silentOk = false;
  }
  return {
    kind: `jsonrpc: ${kind}`,
    method,
    path,
    headers,
    ...(body === '' && method !== 'POST' ? {} : { body }),
    ...(notification ? { notification } : {}),
    ...(silentOk ? { silentOk } : {}),
    ...(oversized ? { oversized } : {}),
    // A notification is never answered (W11), so silence tells nothing about its validity.
    ...(mustRefuse === undefined || notification || silentOk ? {} : { mustRefuse }),
  };
}
