import { TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import { describe, expect, it } from 'vitest';
import { reminderRequestOptions } from './request-options.js';

describe('reminderRequestOptions', () => {
  it('activates the extension and carries the headers and the signal', () => {
    const signal = new AbortController().signal;
    expect(reminderRequestOptions({ Authorization: 'Bearer a' }, signal)).toEqual({
      serviceParameters: {
        authorization: 'Bearer a',
        'a2a-extensions': TASK_REMINDERS_EXTENSION_URI,
      },
      signal,
    });
  });

  it("keeps the caller's extensions and adds ours once (W6)", () => {
    const options = reminderRequestOptions({
      'a2a-extensions': `urn:x, ${TASK_REMINDERS_EXTENSION_URI}`,
    });
    expect(options.serviceParameters).toEqual({
      'a2a-extensions': `urn:x,${TASK_REMINDERS_EXTENSION_URI}`,
    });
    expect('signal' in options).toBe(false);
  });
});
