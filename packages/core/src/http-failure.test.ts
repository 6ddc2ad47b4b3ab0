import { describe, expect, it } from 'vitest';
import { httpFailureOf } from './http-failure.js';

describe('httpFailureOf: what a binding may say about a failure before dispatch (W13)', () => {
  it('keeps the status and caller-facing message of a client error', () => {
    const tooLarge = Object.assign(new Error('request entity too large'), {
      status: 413,
      expose: true,
      type: 'entity.too.large',
    });
    expect(httpFailureOf(tooLarge)).toEqual({
      status: 413,
      message: 'request entity too large',
      malformedJson: false,
    });
  });

  it('marks malformed JSON', () => {
    const parse = Object.assign(new SyntaxError('Unexpected token } in JSON at position 7'), {
      status: 400,
      type: 'entity.parse.failed',
      body: '{"a":1}}',
    });
    expect(httpFailureOf(parse)).toEqual({
      status: 400,
      message: 'Invalid JSON payload.',
      malformedJson: true,
    });
  });

  it('hides the message of a client error not meant for the caller', () => {
    const hidden = Object.assign(new Error('/srv/app/secret.js exploded'), {
      status: 400,
      expose: false,
    });
    expect(httpFailureOf(hidden).message).toBe('The request could not be read.');
  });

  it('turns anything else into a 500 that names no internals', () => {
    const internal = new Error(`ENOENT: no such file '/srv/app/data.json'`);
    const serverSide = Object.assign(new Error('stream encoding should not be set'), {
      status: 500,
    });
    for (const error of [internal, serverSide, 'a string', undefined]) {
      expect(httpFailureOf(error)).toEqual({
        status: 500,
        message: 'Internal error.',
        malformedJson: false,
      });
    }
  });
});
