import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { httpFailureOf, isBodyTooLarge } from './http-failure.js';
import { type JsonBodySource, jsonBodyReader } from './json-body.js';

// The reader's parity with body-parser is held by the REST package's
// json-body-parity test, over a real server; here, what needs a stream by hand.

type Source = PassThrough & JsonBodySource & { complete: boolean };

function source(headers: Record<string, string>): Source {
  return Object.assign(new PassThrough(), {
    headers,
    socket: { readable: true },
    complete: false,
    upgrade: false,
  }) as Source;
}

function read(req: Source): { fallback: () => boolean; next: Promise<unknown> } {
  let fellBack = false;
  const reader = jsonBodyReader<Source, undefined>(
    { limit: 100, type: ['application/json'], strict: true },
    () => () => {
      fellBack = true;
    },
  );
  const next = new Promise<unknown>((resolve) => {
    reader(req, undefined, resolve);
  });
  return { fallback: () => fellBack, next };
}

const headers = (length: number) => ({
  'content-type': 'application/json',
  'content-length': String(length),
});

describe('jsonBodyReader', () => {
  it('reads a body that arrives in several chunks, a character split between two', async () => {
    const bytes = Buffer.from('{"a":"漢"}');
    expect(bytes.length).toBe(11);
    const req = source(headers(11));
    const { fallback, next } = read(req);
    req.write(bytes.subarray(0, 7));
    req.write(bytes.subarray(7, 8));
    req.complete = true;
    req.end(bytes.subarray(8));
    expect(await next).toBeUndefined();
    expect(req.body).toEqual({ a: '漢' });
    expect(fallback()).toBe(false);
  });

  it('holds the body to its Content-Length and the limit, as raw-body does (W3, W12)', async () => {
    const short = source(headers(11));
    const shortRead = read(short);
    short.end('{"a":1}');
    expect(httpFailureOf(await shortRead.next)).toEqual({
      status: 400,
      message: 'request size did not match content length',
      malformedJson: false,
    });

    const long = source(headers(11));
    const longRead = read(long);
    long.end(`{"a":"${'x'.repeat(150)}"}`);
    const error = await longRead.next;
    expect(isBodyTooLarge(error)).toBe(true);
    expect(httpFailureOf(error).status).toBe(413);
    expect(long.body).toBeUndefined();
  });

  it('answers an empty body with {}, and a caller gone before it ended as aborted', async () => {
    const empty = source(headers(0));
    const emptyRead = read(empty);
    empty.end();
    expect(await emptyRead.next).toBeUndefined();
    expect(empty.body).toEqual({});

    const gone = source(headers(0));
    const goneRead = read(gone);
    gone.destroy();
    expect(httpFailureOf(await goneRead.next).message).toBe('request aborted');
  });

  it('reports a caller gone mid-body as an aborted request, 400 (W3)', async () => {
    const req = source(headers(50));
    const { next } = read(req);
    req.write('{"a":');
    req.destroy();
    const error = await next;
    expect(httpFailureOf(error)).toEqual({
      status: 400,
      message: 'request aborted',
      malformedJson: false,
    });
    expect(req.body).toBeUndefined();
  });

  it('leaves a stream already read, or a socket closed for reading, to the fallback', async () => {
    const ended = source(headers(2));
    ended.resume();
    ended.end('{}');
    await new Promise((resolve) => ended.once('end', resolve));
    expect(read(ended).fallback()).toBe(true);

    const halfClosed = Object.assign(source(headers(2)), { socket: { readable: false } });
    expect(read(halfClosed).fallback()).toBe(true);

    const upgrade = Object.assign(source(headers(2)), { upgrade: true });
    expect(read(upgrade).fallback()).toBe(true);

    const text = source(headers(2));
    text.setEncoding('utf8');
    expect(read(text).fallback()).toBe(true);
    expect(read(source(headers(2))).fallback()).toBe(false);
  });

  it('leaves a Content-Length it cannot read to the fallback', () => {
    for (const length of ['', '-1', '1e3', '0x10', '12 ', '1234567890123456']) {
      const req = source({ 'content-type': 'application/json', 'content-length': length });
      expect(read(req).fallback(), length).toBe(true);
    }
  });
});
