import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningWorker } from './worker-server.js';
import { startWorker } from './worker-server.js';

let worker: RunningWorker;
beforeAll(async () => {
  worker = await startWorker({ host: '127.0.0.1', port: 0, grpcPort: 0, maxTurns: 3, turnMs: 0 });
});
afterAll(async () => {
  await worker.close();
});

interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
}

/** An HTTP request as the worker receives it from any caller. */
async function request(
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  const response = await fetch(`${worker.httpBaseUrl}${path}`, {
    method,
    headers: init.headers ?? {},
    ...(init.body === undefined ? {} : { body: init.body }),
  });
  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    text: await response.text(),
  };
}

/** Bytes no HTTP client library would send: the answer of node's parser, read off the socket. */
function rawRequest(bytes: string): Promise<Answer> {
  const url = new URL(worker.httpBaseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', text = ''] = received.split('\r\n\r\n', 2);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      const contentType = /^content-type: (.*)$/im.exec(head)?.[1] ?? '';
      resolve({ status, contentType, text });
    });
    socket.write(bytes);
  });
}

/** W13: a JSON error body with no stack trace and no file path of the server. */
function expectCleanJsonError(answer: Answer): Record<string, unknown> {
  expect(answer.contentType).toMatch(/^application\/(a2a\+)?json/);
  expect(answer.text).not.toMatch(/\n\s+at |node_modules|\.[jt]s:\d+|<html|<pre|<!DOCTYPE/i);
  expect(answer.text).not.toContain(process.cwd());
  expect(answer.text).not.toContain(import.meta.dirname);
  return JSON.parse(answer.text) as Record<string, unknown>;
}

const json = { 'Content-Type': 'application/json', 'A2A-Version': '1.0' };
const huge = JSON.stringify({ padding: 'x'.repeat(300 * 1024) });

describe('worker: every error answer is JSON, with no stack or path (W13)', () => {
  it('answers on the JSON-RPC path with JSON-RPC error objects', async () => {
    const cases: Array<[string, Answer, number, number]> = [
      [
        'PUT with an unknown Content-Encoding',
        await request('PUT', '/a2a/jsonrpc', {
          headers: { ...json, 'Content-Encoding': 'x-custom' },
          body: '{}',
        }),
        415,
        -32600,
      ],
      [
        'POST with an unknown Content-Encoding',
        await request('POST', '/a2a/jsonrpc', {
          headers: { ...json, 'Content-Encoding': 'x-custom' },
          body: '{}',
        }),
        415,
        -32600,
      ],
      ['GET', await request('GET', '/a2a/jsonrpc'), 405, -32600],
      [
        'malformed JSON',
        await request('POST', '/a2a/jsonrpc', { headers: json, body: '{"jsonrpc":' }),
        200,
        -32700,
      ],
      [
        'a body over every limit',
        await request('POST', '/a2a/jsonrpc', { headers: json, body: huge }),
        413,
        -32600,
      ],
      [
        'a huge PUT',
        await request('PUT', '/a2a/jsonrpc', { headers: json, body: huge }),
        413,
        -32600,
      ],
      [
        'a sub-path',
        await request('POST', '/a2a/jsonrpc/nothing', { headers: json, body: '{}' }),
        404,
        -32601,
      ],
    ];
    for (const [name, answer, status, code] of cases) {
      const body = expectCleanJsonError(answer);
      expect({
        name,
        status: answer.status,
        code: (body.error as { code?: number })?.code,
      }).toEqual({ name, status, code });
      expect(body.jsonrpc).toBe('2.0');
    }
  });

  it('answers under the REST prefix with google.rpc.Status bodies', async () => {
    const cases: Array<[string, Answer, number]> = [
      [
        'an unknown Content-Encoding',
        await request('POST', '/a2a/rest/message:send', {
          headers: { ...json, 'Content-Encoding': 'x-custom' },
          body: '{}',
        }),
        415,
      ],
      ['an unknown route', await request('GET', '/a2a/rest/no/such/route'), 404],
      ['an odd method', await request('PATCH', '/a2a/rest/tasks/t1'), 404],
      [
        'malformed JSON',
        await request('POST', '/a2a/rest/message:send', { headers: json, body: '{"message":' }),
        400,
      ],
      [
        'a huge body',
        await request('POST', '/a2a/rest/message:send', { headers: json, body: huge }),
        413,
      ],
      [
        'a huge reminder body',
        await request('POST', '/a2a/rest/tasks/t1:injectReminder', { headers: json, body: huge }),
        413,
      ],
    ];
    for (const [name, answer, status] of cases) {
      const error = expectCleanJsonError(answer).error as { code?: number; status?: string };
      expect({ name, status: answer.status, code: error.code, named: typeof error.status }).toEqual(
        {
          name,
          status,
          code: status,
          named: 'string',
        },
      );
    }
  });

  it('answers every other path with a simple JSON error', async () => {
    const answers = [
      await request('GET', '/nothing/here'),
      await request('POST', '/', { headers: json, body: '{}' }),
      await request('DELETE', '/.well-known/agent-card.json'),
      await request('PUT', '/a2a', {
        headers: { ...json, 'Content-Encoding': 'x-custom' },
        body: '{}',
      }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(404);
      expect(expectCleanJsonError(answer)).toEqual({
        error: { code: 404, message: expect.any(String) },
      });
    }
  });

  it('answers requests node cannot parse with a JSON 400', async () => {
    for (const bytes of [
      'FROBNICATE /a2a/jsonrpc HTTP/1.1\r\nHost: x\r\n\r\n',
      'this is not http\r\n\r\n',
      'GET /a2a/rest HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n',
    ]) {
      const answer = await rawRequest(bytes);
      expect(answer.status).toBe(400);
      expect(expectCleanJsonError(answer)).toEqual({
        error: { code: 400, message: 'The request is not valid HTTP/1.1.' },
      });
    }
    // The server keeps serving.
    const card = await request('GET', '/.well-known/agent-card.json');
    expect(card.status).toBe(200);
  });
});

describe('gRPC', () => {
  it('serves server reflection: a client lists the reminder rpcs without proto files', async () => {
    // `buf curl` (a Go client, independent of grpc-js), in a directory with no proto file.
    const buf = createRequire(import.meta.url).resolve('@bufbuild/buf/bin/buf');
    const { stdout } = await promisify(execFile)(
      buf,
      ['curl', '--protocol', 'grpc', '--list-methods', `http://${worker.grpcAddress}`],
      { cwd: tmpdir() },
    );
    expect(stdout.trim().split('\n')).toEqual([
      'a2a.reminders.v1.TaskReminderService/CancelTaskReminder',
      'a2a.reminders.v1.TaskReminderService/InjectTaskReminder',
      'a2a.reminders.v1.TaskReminderService/ListTaskReminders',
    ]);
  });
});
