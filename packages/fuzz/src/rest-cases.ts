import type { FuzzContext, HttpCase } from './cases.js';
import { SHARED_IDS } from './cases.js';
import { contentType, GOOD_PARAMS, serviceParams, transportHeaders } from './headers.js';
import {
  hostileMetadata,
  hostileReminder,
  hostileString,
  str,
  validId,
  wrongType,
} from './hostile-values.js';
import type { Rng } from './prng.js';

const PREFIX = '/a2a/rest';
const OVERSIZED = [70 * 1024, 110 * 1024, 1024 * 1024];

/** Percent-encodes any string; a lone surrogate becomes the bytes of its (invalid) UTF-8 form. */
function encode(s: string): string {
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    out +=
      cp >= 0xd800 && cp <= 0xdfff
        ? `%${(0xe0 | (cp >> 12)).toString(16)}%${(0x80 | ((cp >> 6) & 0x3f)).toString(16)}%${(0x80 | (cp & 0x3f)).toString(16)}`.toUpperCase()
        : encodeURIComponent(ch);
  }
  return out;
}

/** A path segment: a known task id (encoded), or an odd one. */
function segment(rng: Rng, known: readonly string[]): string {
  return rng.weighted<() => string>([
    [6, () => encode(rng.pick(known))],
    [1, () => encode(hostileString(rng)).slice(0, 20_000)],
    [
      2,
      () =>
        rng.pick([
          '%zz',
          '%',
          '%0',
          '%00',
          '%2F',
          '%2e%2e',
          '..',
          '.',
          '%E0%A4%A',
          '%ED%A0%80',
          '%C0%AF',
          '%FF',
          'a%3AinjectReminder',
          'x:y',
          '',
          '~',
          "!$&'()*+,;=@",
        ]),
    ],
    [1, () => 'no-such-task'],
  ])();
}

function query(rng: Rng): string {
  if (rng.chance(0.5)) return '';
  const parts: string[] = [];
  const value = () =>
    rng.weighted<() => string>([
      [2, () => String(rng.int(1, 100))],
      [
        3,
        () =>
          encode(
            rng.pick([
              '0x10',
              '1e1',
              ' 1',
              '+1',
              '1.0',
              'Infinity',
              'NaN',
              '\u0661',
              '00012',
              '1_0',
              '99999999999999999999',
              '-0',
              '0',
              '101',
              'abc',
            ]),
          ),
      ],
      [1, () => rng.pick(['%zz', '', '0x10', '1e309', '-1', '%00'])],
    ])();
  if (rng.chance(0.7)) parts.push(`pageSize=${value()}`);
  if (rng.chance(0.4))
    parts.push(`pageToken=${rng.chance(0.5) ? encode(hostileString(rng)) : '%zz'}`);
  if (rng.chance(0.4))
    parts.push(`liveOnly=${rng.pick(['true', 'false', 'maybe', '1', 'TRUE', '', '%zz'])}`);
  if (rng.chance(0.1)) parts.push('pageSize=1&pageSize=2');
  if (rng.chance(0.1))
    parts.push(
      `${rng.pick(['taskId', 'tenant', 'x', '%zz'])}=${encode(hostileString(rng)).slice(0, 500)}`,
    );
  return parts.length === 0 ? '' : `?${parts.join('&')}`;
}

function injectBody(rng: Rng, ctx: FuzzContext): { kind: string; body: string; invalid?: string } {
  return rng.weighted<() => { kind: string; body: string; invalid?: string }>([
    [
      3,
      () => {
        const id = rng.pick(SHARED_IDS);
        const v = rng.int(0, 1);
        return {
          kind: 'valid inject (shared id)',
          body: `{"reminder":{"id":${str(id)},"body":${str(`shared body v${v}`)},"dedupeKey":${str(`k${v}`)},"ttlTurns":${v + 1}}}`,
        };
      },
    ],
    [
      8,
      () => {
        const reminder = hostileReminder(rng, ctx.unique);
        // A body taskId other than the path's (or null) is refused (R56).
        const bodyTaskId = rng.chance(0.2)
          ? rng.chance(0.5)
            ? str(hostileString(rng))
            : wrongType(rng)
          : undefined;
        const extra = bodyTaskId === undefined ? '' : `,"taskId":${bodyTaskId}`;
        const invalid =
          reminder.invalid ??
          (bodyTaskId === undefined || bodyTaskId === 'null'
            ? undefined
            : 'a body taskId that differs from the path (R56)');
        return {
          kind: 'inject: hostile reminder',
          body: `{"reminder":${reminder.text}${extra}}`,
          ...(invalid === undefined ? {} : { invalid }),
        };
      },
    ],
    [
      2,
      () => {
        const metadata = hostileMetadata(rng);
        return {
          kind: 'inject: hostile metadata',
          body: `{"reminder":{"id":${str(validId(rng, ctx.unique))},"body":"b","metadata":${metadata.text}}}`,
          ...(metadata.invalid === undefined ? {} : { invalid: metadata.invalid }),
        };
      },
    ],
    [
      2,
      () => ({
        kind: 'inject: non-object body',
        body: rng.pick([
          '[]',
          '[{"reminder":{}}]',
          'null',
          '"x"',
          '42',
          'true',
          '{"reminder":[]}',
          '{"reminder":"r"}',
          '{}',
        ]),
        invalid: 'no reminder object (R9)',
      }),
    ],
    [
      1,
      () => ({
        kind: 'inject: malformed JSON',
        body: rng.pick([
          '{',
          '{"reminder":',
          '{"reminder":{"id":"a",}}',
          "{'reminder':1}",
          '{"reminder":{"body":"\u0001"}}',
          'NaN',
        ]),
        invalid: 'malformed JSON (W3)',
      }),
    ],
  ])();
}

/** One hostile (or, now and then, well-formed) REST request to the worker. */
export function restCase(rng: Rng, ctx: FuzzContext): HttpCase {
  const tenant = rng.chance(0.1) ? `/${segment(rng, ['tenant-a', 'acme'])}` : '';
  const task = segment(rng, ctx.taskIds);
  let headers: Record<string, string> = {
    ...contentType(rng),
    ...serviceParams(rng),
    ...transportHeaders(rng),
  };
  const rpc = rng.weighted<'inject' | 'list' | 'cancel' | 'other'>([
    [6, 'inject'],
    [2, 'list'],
    [2, 'cancel'],
    [1, 'other'],
  ]);
  let method = 'POST';
  let path: string;
  let body: string | undefined;
  let kind: string;
  let oversized = false;
  let mustRefuse: string | undefined;
  if (rpc === 'inject') {
    path = `${PREFIX}${tenant}/tasks/${task}${rng.pick([':injectReminder', ':injectReminder', ':injectReminder', ':InjectReminder', '%3AinjectReminder', ':injectReminder/', ':inject'])}`;
    const b = injectBody(rng, ctx);
    body = b.body;
    kind = b.kind;
    mustRefuse = b.invalid;
    if (rng.chance(0.03)) {
      const size = rng.pick(OVERSIZED);
      body = `{"reminder":{"id":"big","body":${str('x'.repeat(size))}}}`;
      kind = `oversized body (${size} bytes)`;
      headers = { 'Content-Type': 'application/json', ...GOOD_PARAMS };
      oversized = true;
      mustRefuse = 'over the body limit (W12)';
    }
  } else if (rpc === 'list') {
    method = 'GET';
    path = `${PREFIX}${tenant}/tasks/${task}/reminders${query(rng)}`;
    kind = 'list';
  } else if (rpc === 'cancel') {
    const id = rng.chance(0.6) ? encode(rng.pick(SHARED_IDS)) : segment(rng, ['x']);
    path = `${PREFIX}${tenant}/tasks/${task}/reminders/${id}:cancel`;
    body = rng.pick(['{}', '', '[]', `{"reminderId":${str(hostileString(rng))}}`, '{"taskId":1}']);
    kind = 'cancel';
  } else {
    method = rng.pick(['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'POST']);
    path = `${PREFIX}${rng.pick([
      `/tasks/${task}:injectReminder`,
      `/tasks/${task}/reminders`,
      `/tasks/${task}/reminders/x:cancel`,
      `/tasks/${task}`,
      '/tasks/%zz:injectReminder',
      '/%zz',
      '/',
      '',
      '/tasks',
      '/message:send',
      `/tasks/${task}:cancel`,
    ])}`;
    body =
      method === 'GET' || method === 'HEAD' ? undefined : rng.pick(['', '{}', '[]', '{"x":1}']);
    kind = `${method} on an odd route`;
  }
  // A method the route does not take.
  if (rpc !== 'other' && rng.chance(0.05)) {
    method = rng.pick(['GET', 'PUT', 'DELETE', 'PATCH', 'POST']);
    kind = `${kind} with ${method}`;
    if (method === 'GET') body = undefined;
    mustRefuse = undefined;
  }
  return {
    kind: `rest: ${kind}`,
    method,
    path,
    headers,
    ...(body === undefined ? {} : { body }),
    ...(oversized ? { oversized } : {}),
    ...(mustRefuse === undefined ? {} : { mustRefuse }),
  };
}
