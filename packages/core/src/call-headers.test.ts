import { describe, expect, it } from 'vitest';
import { reminderCallHeaders } from './call-headers.js';
import { TASK_REMINDERS_EXTENSION_URI } from './extension-uri.js';

const URI = TASK_REMINDERS_EXTENSION_URI;

describe('reminderCallHeaders: the one header rule of every client (W6)', () => {
  it('keeps the extensions of the client and of the call, whatever their spelling, and adds the URI', () => {
    const headers = reminderCallHeaders(
      { 'A2A-Extensions': 'urn:client-a, urn:client-b' },
      { 'a2a-extensions': 'urn:call' },
    );
    expect(headers.get('a2a-extensions')).toBe(`urn:client-a,urn:client-b,urn:call,${URI}`);
  });

  it('keeps both spellings given in one source', () => {
    const headers = reminderCallHeaders({
      'a2a-extensions': 'urn:lower',
      'A2A-EXTENSIONS': 'urn:upper',
    });
    expect(headers.get('a2a-extensions')).toBe(`urn:lower,urn:upper,${URI}`);
  });

  it('lists each extension once, the URI included', () => {
    const headers = reminderCallHeaders(
      { 'A2A-Extensions': `urn:x,${URI}` },
      { 'a2a-extensions': 'urn:x' },
    );
    expect(headers.get('a2a-extensions')).toBe(`urn:x,${URI}`);
  });

  it('lets the call win for every other header, compared case-insensitively', () => {
    const headers = reminderCallHeaders(
      { Authorization: 'Bearer client', 'x-trace': 'client' },
      { authorization: 'Bearer call' },
    );
    expect(headers.get('authorization')).toBe('Bearer call');
    expect(headers.get('x-trace')).toBe('client');
    expect(headers.get('a2a-version')).toBe('1.0');
    expect(headers.get('a2a-extensions')).toBe(URI);
  });
});
