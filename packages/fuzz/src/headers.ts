import { TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import type { Rng } from './prng.js';

const URI = TASK_REMINDERS_EXTENSION_URI;

/** The service parameters of a well-behaved caller (R3, R4). */
export const GOOD_PARAMS: Readonly<Record<string, string>> = {
  'A2A-Version': '1.0',
  'A2A-Extensions': URI,
};

const VERSIONS = [
  '1.0',
  '0.3',
  '2.0',
  '',
  'abc',
  '1',
  '1.0, 1.0',
  ' 1.0 ',
  '1.0.0',
  'v1.0',
  '1.0;q=1',
];
const EXTENSIONS = [
  URI,
  '',
  ',',
  `${URI},${URI}`,
  ` ${URI} `,
  `${URI.toUpperCase()}`,
  `${URI}/`,
  `${URI};q=1`,
  'urn:something-else',
  `urn:a, ${URI}, urn:b`,
  Array.from({ length: 200 }, (_, i) => `urn:x${i}`).join(','),
];

/**
 * The A2A service parameters of one request: usually right, often missing or
 * odd (R3, R4, R5: every answer must still be typed, in the right order).
 * Only bytes an HTTP client may send (no control characters in values).
 */
export function serviceParams(rng: Rng): Record<string, string> {
  if (rng.chance(0.6)) return { ...GOOD_PARAMS };
  const out: Record<string, string> = {};
  if (!rng.chance(0.25)) out['A2A-Version'] = rng.pick(VERSIONS);
  if (!rng.chance(0.25)) out['A2A-Extensions'] = rng.pick(EXTENSIONS);
  if (rng.chance(0.1))
    out.Authorization = rng.pick(['Bearer x', 'Basic', '', 'Bearer '.padEnd(5000, 'a')]);
  return out;
}

/** Content types, right and wrong. */
export function contentType(rng: Rng): Record<string, string> {
  if (rng.chance(0.8)) return { 'Content-Type': 'application/json' };
  const value = rng.pick([
    '',
    'text/plain',
    'application/json; charset=latin1',
    'application/json; charset=utf-16',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/a2a+json',
    'application/json, text/html',
    'APPLICATION/JSON',
  ]);
  return value === '' ? {} : { 'Content-Type': value };
}

/** Now and then an odd transport header (the issue's `Content-Encoding: x-custom` → HTML 415). */
export function transportHeaders(rng: Rng): Record<string, string> {
  if (!rng.chance(0.06)) return {};
  return rng.pick<Record<string, string>>([
    { 'Content-Encoding': 'x-custom' },
    { 'Content-Encoding': 'gzip' },
    { 'Content-Encoding': 'br' },
    { Accept: 'text/html' },
    { Accept: 'application/xml' },
    { 'Accept-Charset': 'ebcdic' },
    { Expect: '100-continue' },
    { 'X-HTTP-Method-Override': 'DELETE' },
  ]);
}
