#!/usr/bin/env node
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Binding } from './cli-args.js';
import { BINDINGS } from './cli-args.js';
import type { DemoResult } from './demo.js';
import { runDemo } from './demo.js';
import { spawnWorker, stopWorker } from './worker-process.js';

/**
 * `npm run demo` (issue 5): starts a worker on free ports, runs the
 * coordinator demo over each binding in turn, stops the worker, and exits 0
 * only if every reminder reached the fate the demo expects. The worker is
 * stopped on every path, including failures and Ctrl-C.
 */

const USAGE = `Usage: run-demo [--turn-ms <ms>] [--turns <n>] [--binding <b>]...

Starts a worker on free loopback ports, its tasks and reminders in a fresh SQLite file,
and runs the coordinator demo over each binding.

Options:
  --turn-ms <ms>   the worker's pause between turns (default 600)
  --turns <n>      the worker's turns per task (default 12)
  --binding <b>    jsonrpc | rest | grpc; repeatable (default: all three in turn)
  --worker <path>  the worker's built entry (default: the sibling apps/worker/dist/main.js)`;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      'turn-ms': { type: 'string', default: '600' },
      turns: { type: 'string', default: '12' },
      binding: { type: 'string', multiple: true },
      worker: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const bindings = (values.binding ?? [...BINDINGS]) as Binding[];
  const unknown = bindings.filter((b) => !BINDINGS.includes(b));
  if (unknown.length > 0) {
    console.error(`error: unknown binding ${unknown.join(', ')}\n\n${USAGE}`);
    return 2;
  }
  const workerMain =
    values.worker ?? fileURLToPath(new URL('../../worker/dist/main.js', import.meta.url));

  // The worker's default store, a SQLite file, in a directory of this run's
  // own: demos never see each other's tasks, and nothing is left behind.
  const storeDir = mkdtempSync(join(tmpdir(), 'a2a-reminders-demo-'));
  process.once('exit', () => rmSync(storeDir, { recursive: true, force: true }));
  const worker = await spawnWorker(
    workerMain,
    [
      '--port',
      '0',
      '--grpc-port',
      '0',
      '--turn-ms',
      values['turn-ms'],
      '--turns',
      values.turns,
      '--store',
      `sqlite:${join(storeDir, 'worker.sqlite')}`,
    ],
    (line) => {
      if (line.startsWith('STORE ')) console.log(`worker store: ${line.slice('STORE '.length)}`);
    },
  );
  // However this process ends, the worker ends with it.
  const killWorker = () => worker.child.kill('SIGKILL');
  process.once('exit', killWorker);
  const interrupted = new Promise<never>((_, reject) => {
    const onSignal = (signal: NodeJS.Signals) => reject(new Error(`interrupted by ${signal}`));
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  });
  console.log(`worker ready: http=${worker.httpBaseUrl} grpc=${worker.grpcAddress}`);

  const results: DemoResult[] = [];
  let failure: unknown;
  try {
    for (const binding of bindings) {
      console.log('');
      const demo = runDemo({
        connection: {
          url: `${worker.httpBaseUrl}/.well-known/agent-card.json`,
          binding,
          headers: {},
        },
        write: (line) => console.log(line),
      });
      results.push(await Promise.race([demo, interrupted]));
    }
  } catch (error) {
    failure = error;
  } finally {
    const code = await stopWorker(worker.child);
    process.off('exit', killWorker);
    if (code !== 0 && failure === undefined) failure = new Error(`the worker exited with ${code}`);
  }

  console.log('');
  for (const r of results) {
    console.log(
      `${r.ok ? 'ok  ' : 'FAIL'} ${r.binding.padEnd(8)} task ${r.taskId} ${r.finalState}`,
    );
  }
  if (failure !== undefined) {
    console.error(`demo failed: ${failure instanceof Error ? failure.message : String(failure)}`);
    return 1;
  }
  const ok = results.length === bindings.length && results.every((r) => r.ok);
  console.log(
    ok
      ? 'every reminder reached its expected fate'
      : 'some reminders did not reach their expected fate',
  );
  return ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`demo failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
