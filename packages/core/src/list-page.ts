import type { ListTaskRemindersRequest } from '@a2a-reminders/proto';
import type { FieldViolation } from './errors.js';

// R49: ListTaskReminders pages like A2A's ListTasks: the same default and
// maximum page size, an opaque page token, an empty token on the last page.

/** Page size when the request leaves `pageSize` unset (A2A ListTasks' default). */
export const DEFAULT_LIST_PAGE_SIZE = 50;
/** Largest accepted `pageSize` (A2A ListTasks' maximum). */
export const MAX_LIST_PAGE_SIZE = 100;

/**
 * Tokens carry this prefix before the sequence number, so that a token of a
 * later format can be told apart and refused rather than misread.
 */
const TOKEN_PREFIX = 'r1:';
/** A canonical decimal sequence number: no sign, no leading zero, at most 15 digits. */
const SEQ_PATTERN = /^[1-9][0-9]{0,14}$/;
const BASE64URL_PATTERN = /^[A-Za-z0-9_-]+$/;

/**
 * The token for the page after the record with acceptance sequence `seq`.
 * It names a position in the task's acceptance order, not a record, so it
 * stays valid when records before or after it are purged (R48).
 */
export function encodePageToken(seq: number): string {
  return toBase64Url(`${TOKEN_PREFIX}${seq}`);
}

/**
 * The sequence number a token names, or `undefined` when the server cannot
 * have issued it. Only the canonical form is read, so every position has
 * exactly one token.
 */
export function decodePageToken(token: string): number | undefined {
  if (!BASE64URL_PATTERN.test(token)) return undefined;
  const text = fromBase64Url(token);
  if (text === undefined) return undefined;
  if (!text.startsWith(TOKEN_PREFIX)) return undefined;
  const digits = text.slice(TOKEN_PREFIX.length);
  if (!SEQ_PATTERN.test(digits)) return undefined;
  const seq = Number(digits);
  return encodePageToken(seq) === token ? seq : undefined;
}

/** The page a valid request asks for (call after {@link pageViolations} found none). */
export function pageQueryOf(request: ListTaskRemindersRequest): {
  afterSeq: number;
  limit: number;
  liveOnly: boolean;
} {
  return {
    afterSeq: request.pageToken === '' ? 0 : (decodePageToken(request.pageToken) ?? 0),
    limit: request.pageSize ?? DEFAULT_LIST_PAGE_SIZE,
    liveOnly: request.liveOnly,
  };
}

/** R8, R49: the violations of a ListTaskReminders request's paging fields. */
export function pageViolations(request: ListTaskRemindersRequest): FieldViolation[] {
  const violations: FieldViolation[] = [];
  const size = request.pageSize;
  if (size !== undefined && !(Number.isInteger(size) && size >= 1 && size <= MAX_LIST_PAGE_SIZE)) {
    violations.push({
      field: 'pageSize',
      description: `must be an integer from 1 to ${MAX_LIST_PAGE_SIZE} (default ${DEFAULT_LIST_PAGE_SIZE})`,
    });
  }
  if (request.pageToken !== '' && decodePageToken(request.pageToken) === undefined) {
    violations.push({
      field: 'pageToken',
      description: 'is not a page token this server issued; pass the nextPageToken of a page',
    });
  }
  return violations;
}

// The token is ASCII; btoa/atob keep core free of Node's Buffer.
function toBase64Url(ascii: string): string {
  return btoa(ascii).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(token: string): string | undefined {
  try {
    return atob(token.replace(/-/g, '+').replace(/_/g, '/'));
  } catch {
    return undefined;
  }
}
