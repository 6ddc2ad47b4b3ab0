import { request as httpRequest, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { httpFailureOf, isBodyTooLarge, jsonBodyReader } from '@a2a-reminders/core/protocol';
import type { NextFunction, Request, Response } from 'express';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The fast JSON body reader of both HTTP bindings answers every body exactly as
// body-parser's json() with the same options does (W3, W12): each case is sent to a
// route read by each, and the outcomes compared.

const LIMIT = 64;
const TYPES = ['application/json', 'application/a2a+json'];

interface Case {
  readonly name: string;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
  /** The fast path reads it (otherwise body-parser does, through the fallback). */
  readonly fast: boolean;
}

const json = (text: string, type = 'application/json'): Record<string, string> => ({
  'content-type': type,
  'content-length': String(Buffer.byteLength(text)),
});
const text = (name: string, body: string, fast: boolean, type?: string): Case => ({
  name,
  headers: json(body, type),
  body: Buffer.from(body),
  fast,
});
const INVALID_UTF8 = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]);

const CASES: readonly Case[] = [
  text('an object', '{"a":1,"b":[true,null]}', true),
  text('an array', '[1,2]', true),
  text('a string at the top', '"text"', true),
  text('a number at the top', '42', true),
  text('whitespace around an object', ' \n\t{"a":1} \r\n', true),
  text('whitespace only', '   ', true),
  text('an empty body', '', true),
  text('malformed JSON', '{"a":', true),
  text('a byte order mark', '\ufeff{"a":1}', true),
  text('multi-byte text', '{"a":"é漢字😀"}', true),
  text('charset=utf-8', '{"a":1}', true, 'application/json; charset=utf-8'),
  text('upper-case type and charset', '{"a":1}', true, 'Application/JSON;Charset=UTF-8'),
  text('the A2A media type', '{"a":1}', true, 'application/a2a+json'),
  {
    name: 'invalid UTF-8',
    headers: json('x'.repeat(INVALID_UTF8.length)),
    body: INVALID_UTF8,
    fast: true,
  },
  text('a body over the limit', `{"a":"${'x'.repeat(LIMIT)}"}`, false),
  text('charset=utf-16', '{"a":1}', false, 'application/json; charset=utf-16'),
  text('an unknown charset', '{"a":1}', false, 'application/json; charset=latin1'),
  text('a quoted charset', '{"a":1}', false, 'application/json; charset="utf-8"'),
  text('another media type', '{"a":1}', false, 'text/plain'),
  text('a space inside the media type', '{"a":1}', false, 'application/ json'),
  text('a space inside the charset', '{"a":1}', false, 'application/json; charset=utf -8'),
  text('a space before the parameter', '{"a":1}', false, 'application/json ;charset=utf-8'),
  text('another parameter', '{"a":1}', false, 'application/json; charset=utf-8; x=1'),
  {
    name: 'no media type',
    headers: { 'content-length': '7' },
    body: Buffer.from('{"a":1}'),
    fast: false,
  },
  {
    name: 'a chunked body',
    headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
    body: Buffer.from('{"a":1}'),
    fast: false,
  },
  {
    name: 'the identity content coding',
    headers: { ...json('{"a":1}'), 'content-encoding': 'Identity' },
    body: Buffer.from('{"a":1}'),
    fast: true,
  },
  {
    name: 'an unknown content coding',
    headers: { ...json('{"a":1}'), 'content-encoding': 'x-custom' },
    body: Buffer.from('{"a":1}'),
    fast: false,
  },
];

/** What a route saw: the body it parsed, or how httpFailureOf reads its failure. */
function outcomeRoute(reader: express.RequestHandler): express.Router {
  const router = express.Router();
  router.post('/', reader, (req: Request, res: Response) => {
    res.json({ body: req.body === undefined ? '(none)' : req.body });
  });
  router.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    res.json({ failure: httpFailureOf(error), tooLarge: isBodyTooLarge(error) });
  });
  return router;
}

let server: Server;
/** Called with what the reader passed on for a request to /aborted. */
let settleAborted: (outcome: unknown) => void = () => {};
let reachedAborted: () => void = () => {};
let port = 0;
const fallbackCalls: string[] = [];

beforeAll(async () => {
  const app = express();
  for (const strict of [true, false]) {
    const options = { limit: LIMIT, type: TYPES, strict };
    // The fallback is express.json() with the reader's own options, counted.
    const fast = jsonBodyReader<Request, Response>(options, (made) => {
      const parser = express.json(made);
      return (req, res, next) => {
        fallbackCalls.push(String(req.headers['x-case']));
        parser(req, res, next);
      };
    });
    app.use(`/fast-${strict}`, outcomeRoute(fast));
    app.use(`/parser-${strict}`, outcomeRoute(express.json(options)));
  }
  const reader = jsonBodyReader<Request, Response>(
    { limit: LIMIT, type: TYPES, strict: false },
    express.json,
  );
  app.post('/aborted', (req, res) => {
    reachedAborted();
    reader(req, res, (error) => settleAborted(error));
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => {
  server.close();
});

function send(path: string, c: Case): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        headers: { ...c.headers, 'x-case': c.name },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const answer = Buffer.concat(chunks).toString('utf8');
          try {
            resolve(JSON.parse(answer));
          } catch {
            reject(new Error(`${res.statusCode} ${answer}`));
          }
        });
      },
    );
    req.on('error', reject);
    req.end(c.body);
  });
}

describe('jsonBodyReader reads as body-parser does (W3, W12)', () => {
  for (const strict of [true, false]) {
    for (const c of CASES) {
      it(`${c.name}, strict ${strict}: ${c.fast ? 'read by the fast path' : 'left to body-parser'}`, async () => {
        const before = fallbackCalls.length;
        const ours = await send(`/fast-${strict}`, c);
        const usedFallback = fallbackCalls.slice(before).includes(c.name);
        expect(usedFallback).toBe(!c.fast);
        expect(ours).toEqual(await send(`/parser-${strict}`, c));
      });
    }
  }

  it('sees every kind of outcome among the cases', async () => {
    const outcomes = await Promise.all(CASES.map((c) => send('/fast-true', c)));
    const kinds = new Set(
      outcomes.map((o) => {
        const r = o as { body?: unknown; failure?: { status: number }; tooLarge?: boolean };
        if (r.tooLarge === true) return 'too large';
        if (r.failure !== undefined) return `failure ${r.failure.status}`;
        return r.body === '(none)' ? 'not read' : 'read';
      }),
    );
    expect([...kinds].sort()).toEqual([
      'failure 400',
      'failure 415',
      'not read',
      'read',
      'too large',
    ]);
  });

  it('reports a caller gone mid-body on a real socket as aborted, and the server keeps serving', async () => {
    const outcome = new Promise<unknown>((resolve) => {
      settleAborted = resolve;
    });
    const reached = new Promise<void>((resolve) => {
      reachedAborted = resolve;
    });
    const socket = connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      'POST /aborted HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{"a":',
    );
    // Gone once the reader is on the request, whatever the machine's speed.
    await reached;
    socket.destroy();
    expect(httpFailureOf(await outcome)).toEqual({
      status: 400,
      message: 'request aborted',
      malformedJson: false,
    });
    expect(await send('/fast-true', CASES[0] as Case)).toEqual({ body: { a: 1, b: [true, null] } });
  });
});
