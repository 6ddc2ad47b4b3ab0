// What reading a JSON request body costs (README, Where the time goes):
// `npm run bench:body -w @a2a-reminders/bench`. An express server in this process answers the
// same small JSON on three routes: a GET with no body, a POST whose body express.json() reads and
// a POST whose body the HTTP bindings' jsonBodyReader reads; the body is a REST inject's. The
// load, 16 keep-alive requests at a time, runs in a child process. Server CPU per request from
// process.cpuUsage (all threads); the routes rotate one position per round.
// Flags: --rounds 12 --requests 10000 --warmup 3000
import { fork } from 'node:child_process';
import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { jsonBodyReader, sendJson } from '@a2a-reminders/core/protocol';
import type { Request, Response } from 'express';
import express from 'express';
import { numberFlag } from './cli-args.js';
import { injectReminderJson } from './inject-request.js';
import { inParallel } from './json-rpc-fetch.js';
import { spread } from './stats.js';

const ROUTES = ['/get', '/express-json', '/reader'] as const;
type Route = (typeof ROUTES)[number];
const LABELS: Record<Route, string> = {
  '/get': 'GET, no body',
  '/express-json': 'POST, express.json()',
  '/reader': 'POST, jsonBodyReader',
};
const CONCURRENCY = 16;

interface Job {
  readonly port: number;
  readonly route: Route;
  readonly count: number;
}

if (process.argv[2] === '--client') {
  const { reminder } = injectReminderJson('task-1', 'reminder-1', 'displacing');
  const body = JSON.stringify({ reminder });
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const one = (job: Job) =>
    new Promise<void>((resolve, reject) => {
      const post = job.route !== '/get';
      const req = request(
        {
          host: '127.0.0.1',
          port: job.port,
          path: job.route,
          method: post ? 'POST' : 'GET',
          agent,
          headers: post
            ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }
            : {},
        },
        (res) => {
          res.resume();
          res.on('end', () =>
            res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`)),
          );
        },
      );
      req.on('error', reject);
      req.end(post ? body : undefined);
    });
  // The bench process gone (an error, ^C), nothing is left to load.
  process.on('disconnect', () => process.exit(0));
  process.on('message', async (job: Job) => {
    try {
      await inParallel(
        CONCURRENCY,
        Array.from({ length: job.count }, () => () => one(job)),
      );
      process.send?.({ done: true });
    } catch (error) {
      process.send?.({ error: String(error) });
    }
  });
} else {
  const argv = process.argv.slice(2);
  const rounds = numberFlag(argv, '--rounds', 12);
  const requests = numberFlag(argv, '--requests', 10_000);
  const warmup = numberFlag(argv, '--warmup', 3000);

  const answer = { id: 'reminder-1', state: 'TASK_REMINDER_STATE_PENDING' };
  const reply = (req: Request, res: Response) => {
    if (req.method === 'POST' && (req.body as { reminder?: unknown }).reminder === undefined) {
      throw new Error('body not read');
    }
    sendJson(res, 200, answer);
  };
  const parserOptions = { limit: 64 * 1024, type: ['application/json'], strict: false };
  let fellBack = 0;
  const app = express();
  app.get('/get', reply);
  app.post('/express-json', express.json(parserOptions), reply);
  app.post(
    '/reader',
    jsonBodyReader<Request, Response>(parserOptions, (made) => {
      const parser = express.json(made);
      return (req, res, next) => {
        fellBack += 1;
        parser(req, res, next);
      };
    }),
    reply,
  );
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const port = (server.address() as AddressInfo).port;
  const client = fork(fileURLToPath(import.meta.url), ['--client']);
  const run = (route: Route, count: number) =>
    new Promise<void>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`load process exited (${code})`));
      client.once('exit', onExit);
      client.once('message', (answer: { error?: string }) => {
        client.off('exit', onExit);
        if (answer.error === undefined) resolve();
        else reject(new Error(`load on ${route}: ${answer.error}`));
      });
      client.send({ port, route, count } satisfies Job);
    });
  for (const route of ROUTES) await run(route, warmup);
  const perRoute = new Map<Route, number[]>(ROUTES.map((r) => [r, []]));
  for (let round = 0; round < rounds; round += 1) {
    const order = ROUTES.map((_, i) => ROUTES[(i + round) % ROUTES.length] as Route);
    for (const route of order) {
      const before = process.cpuUsage();
      await run(route, requests);
      const used = process.cpuUsage(before);
      perRoute.get(route)?.push((used.user + used.system) / requests);
    }
  }
  client.kill();
  server.close();
  if (fellBack > 0) throw new Error(`jsonBodyReader fell back to express.json() ${fellBack} times`);

  const us = (v: number) => v.toFixed(1);
  const range = (values: number[]) => {
    const s = spread(values);
    return `${us(s.median)} (${us(s.min)}–${us(s.max)})`;
  };
  const values = (route: Route) => perRoute.get(route) ?? [];
  console.log(
    `${rounds} rounds × ${requests} requests per route, 16 at a time; server CPU µs/request`,
  );
  for (const route of ROUTES) console.log(`  ${LABELS[route].padEnd(24)} ${range(values(route))}`);
  const diff = (a: Route, b: Route) => values(a).map((v, i) => v - (values(b)[i] ?? 0));
  console.log('per-round differences, median (min–max):');
  console.log(`  express.json() − GET          ${range(diff('/express-json', '/get'))}`);
  console.log(`  jsonBodyReader − GET          ${range(diff('/reader', '/get'))}`);
  console.log(`  express.json() − jsonBodyReader ${range(diff('/express-json', '/reader'))}`);
}
