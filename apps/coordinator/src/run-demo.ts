#!/usr/bin/env node
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Binding } from '@a2a-reminders/core';
import type { RunDemoOptions } from './cli-args.js';
import { parseRunDemoArgs, UsageError } from './cli-args.js';
import type { DemoResult } from './demo.js';
import { runDemo } from './demo.js';
import { createDemoDatabase } from './demo-database.js';
import type { ForwardingDemoResult } from './forwarding-demo.js';
import { runForwardingDemo } from './forwarding-demo.js';
import { runReplicaDemo } from './replica-demo.js';
import type { WorkerExit, WorkerProcess } from './worker-process.js';
import { exitText, spawnWorker, stopWorker } from './worker-process.js';

/**
 * `npm run demo` (issue 5): starts a worker on free ports, runs the
 * coordinator demo over each binding in turn, stops the worker, and exits 0
 * only if every reminder reached the fate the demo expects.
 *
 * `npm run demo -- --replicas <n>` (issue 10): starts n worker replicas on a
 * fresh PostgreSQL database and runs the replica demo across them, exiting 0
 * only if every reminder ended in the state the running replica's stream
 * showed. The database is dropped at the end.
 *
 * Workers are stopped, and the database dropped, on every path: failures and
 * Ctrl-C included.
 */

type Mode<K extends RunDemoOptions['mode']['kind']> = Extract<RunDemoOptions['mode'], { kind: K }>;

async function main(): Promise<number> {
  let command: ReturnType<typeof parseRunDemoArgs>;
  try {
    command = parseRunDemoArgs(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`error: ${error.message}\n\n${error.usage}`);
    return 2;
  }
  if (command.kind === 'help') {
    console.log(command.text);
    return 0;
  }
  const { options } = command;
  const workers = new Workers(
    options.workerMain ?? fileURLToPath(new URL('../../worker/dist/main.js', import.meta.url)),
    ['--turn-ms', String(options.turnMs), '--turns', String(options.turns)],
  );
  // However this process ends, the workers end with it.
  process.once('exit', () => workers.kill());
  let failure: unknown;
  let ok = false;
  try {
    ok =
      options.mode.kind === 'replicas'
        ? await replicaDemo(options.mode, workers)
        : await bindingDemos(options.mode, workers);
  } catch (error) {
    failure = error;
  } finally {
    const stopped = await workers.stopAll();
    if (stopped !== undefined && failure === undefined) failure = stopped;
  }
  if (failure !== undefined) {
    console.error(`demo failed: ${failure instanceof Error ? failure.message : String(failure)}`);
    return 1;
  }
  return ok ? 0 : 1;
}

/** The workers this run started, and how to start, stop and kill them. */
class Workers {
  readonly #started: WorkerProcess[] = [];
  readonly #stops = new Map<WorkerProcess, Promise<WorkerExit>>();
  /** Aborted on Ctrl-C or SIGTERM: whatever runs then throws, and the cleanup follows. */
  readonly #interrupt = new AbortController();

  constructor(
    readonly main: string,
    readonly pacing: readonly string[],
  ) {
    const onSignal = (signal: NodeJS.Signals) =>
      this.#interrupt.abort(new Error(`interrupted by ${signal}`));
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  }

  get signal(): AbortSignal {
    return this.#interrupt.signal;
  }

  /** A promise that rejects when the run is interrupted, to race steps that take no signal. */
  interrupted(): Promise<never> {
    const signal = this.signal;
    return new Promise((_, reject) => {
      if (signal.aborted) reject(signal.reason);
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  }

  async start(
    args: readonly string[],
    onOutput: (line: string) => void,
    pacing: readonly string[] = this.pacing,
  ): Promise<WorkerProcess> {
    const worker = await spawnWorker(this.main, [...args, ...pacing], {
      onOutput,
      signal: this.signal,
    });
    this.#started.push(worker);
    return worker;
  }

  /**
   * Stops every worker (SIGTERM, then SIGKILL); an error if one exited other
   * than with 0. A worker is stopped once: a second call reports how it ended.
   */
  async stopAll(): Promise<Error | undefined> {
    const exits = await Promise.all(
      this.#started.map(async (w) => {
        const stopping = this.#stops.get(w) ?? stopWorker(w.child);
        this.#stops.set(w, stopping);
        return { worker: w, exit: await stopping };
      }),
    );
    const failed = exits
      .filter(({ exit }) => exit.code !== 0)
      .map(({ worker, exit }) => `${worker.replica?.id ?? worker.httpBaseUrl}: ${exitText(exit)}`);
    return failed.length === 0 ? undefined : new Error(`a worker exited with ${failed.join(', ')}`);
  }

  kill(): void {
    for (const w of this.#started) w.child.kill('SIGKILL');
  }
}

/** One worker on a fresh SQLite file; the coordinator demo over each binding in turn. */
async function bindingDemos(mode: Mode<'bindings'>, workers: Workers): Promise<boolean> {
  // The worker's default store, a SQLite file, in a directory of this run's
  // own: demos never see each other's tasks, and nothing is left behind.
  const storeDir = mkdtempSync(join(tmpdir(), 'a2a-reminders-demo-'));
  process.once('exit', () => rmSync(storeDir, { recursive: true, force: true }));
  const worker = await workers.start(
    ['--port', '0', '--grpc-port', '0', '--store', `sqlite:${join(storeDir, 'worker.sqlite')}`],
    (line) => {
      if (line.startsWith('STORE ')) console.log(`worker store: ${line.slice('STORE '.length)}`);
    },
  );
  console.log(`worker ready: http=${worker.httpBaseUrl} grpc=${worker.grpcAddress}`);

  const results: DemoResult[] = [];
  try {
    for (const binding of mode.bindings) {
      console.log('');
      const demo = runDemo({
        connection: {
          url: `${worker.httpBaseUrl}/.well-known/agent-card.json`,
          binding,
          headers: {},
        },
        write: (line) => console.log(line),
      });
      results.push(await Promise.race([demo, workers.interrupted()]));
    }
  } finally {
    console.log('');
    for (const r of results) {
      console.log(
        `${r.ok ? 'ok  ' : 'FAIL'} ${r.binding.padEnd(8)} task ${r.taskId} ${r.finalState}`,
      );
    }
  }
  const forwarded = await forwardingDemo(mode.bindings[0] ?? 'jsonrpc', storeDir, workers);
  const ok = results.length === mode.bindings.length && results.every((r) => r.ok) && forwarded.ok;
  console.log(
    ok
      ? 'every reminder reached its expected fate, and every forwarded copy came back'
      : 'some reminders did not reach their expected fate',
  );
  return ok;
}

/** The name on the test agent's card, as the worker's progress names it. */
const TEST_AGENT_NAME = 'a2a-reminders test agent';

/** The test agent's pace: the least a worker with no turn limit takes (its `--turn-ms`). */
const TEST_AGENT_TURN_MS = 500;

/**
 * Spec §15's three-level chain: a test agent (a worker with no turn limit, so
 * that its run ends when a forwarded budget alert makes its model wrap up,
 * not on a clock) and a worker delegating its test steps to it over
 * `binding`, reminders forwarded.
 */
async function forwardingDemo(
  binding: Binding,
  storeDir: string,
  workers: Workers,
): Promise<ForwardingDemoResult> {
  const testAgent = await workers.start([
    '--port',
    '0',
    '--grpc-port',
    '0',
    '--store',
    `sqlite:${join(storeDir, 'test-agent.sqlite')}`,
    '--name',
    TEST_AGENT_NAME,
  ], () => {}, ['--turns', '0', '--turn-ms', String(TEST_AGENT_TURN_MS)]);
  const worker = await workers.start(
    [
      '--port',
      '0',
      '--grpc-port',
      '0',
      '--store',
      `sqlite:${join(storeDir, 'delegating-worker.sqlite')}`,
      '--delegate-tests',
      testAgent.httpBaseUrl,
      '--delegate-binding',
      binding,
    ],
    () => {},
  );
  console.log('');
  console.log(`test agent ready: http=${testAgent.httpBaseUrl} grpc=${testAgent.grpcAddress}`);
  console.log(
    `delegating worker ready: http=${worker.httpBaseUrl}, its test steps run on the test agent over ${binding}`,
  );
  const cardOf = (w: WorkerProcess) => `${w.httpBaseUrl}/.well-known/agent-card.json`;
  const result = await Promise.race([
    runForwardingDemo({
      worker: { url: cardOf(worker), binding, headers: {} },
      testAgent: { url: cardOf(testAgent), binding, headers: {} },
      write: (line) => console.log(line),
    }),
    workers.interrupted(),
  ]);
  console.log(
    `${result.ok ? 'ok  ' : 'FAIL'} forward  task ${result.taskId} → ${result.subTaskId}`,
  );
  return result;
}

/**
 * n replicas on a database of the run's own, created on the server
 * `--pg-url` names and dropped once the replicas are stopped.
 */
async function replicaDemo(mode: Mode<'replicas'>, workers: Workers): Promise<boolean> {
  const server = new URL(mode.pgUrl).host;
  const database = await createDemoDatabase(mode.pgUrl).catch((error: unknown) => {
    const why = error instanceof Error ? error.message : String(error);
    throw new Error(`cannot create the demo's database on ${server} (--pg-url): ${why}`);
  });
  console.log(`database: created ${database.name} on ${server}`);
  let ok = false;
  try {
    const replicas: WorkerProcess[] = [];
    // One at a time: the first creates the tables in the empty database.
    for (let n = 1; n <= mode.replicas; n++) {
      const worker = await workers.start(
        [
          '--store',
          database.url,
          '--port',
          '0',
          '--grpc-port',
          '0',
          '--replica-id',
          `replica-${n}`,
        ],
        () => {},
      );
      const lease = worker.replica === undefined ? '' : `, task lease ${worker.replica.leaseMs} ms`;
      console.log(
        `replica-${n} ready: http=${worker.httpBaseUrl} grpc=${worker.grpcAddress}${lease}`,
      );
      replicas.push(worker);
    }
    console.log('');
    const result = await runReplicaDemo({
      replicas: replicas.map((w, i) => ({
        id: w.replica?.id ?? `replica-${i + 1}`,
        cardUrl: `${w.httpBaseUrl}/.well-known/agent-card.json`,
      })),
      write: (line) => console.log(line),
      signal: workers.signal,
    });
    const leaseMs = replicas[0]?.replica?.leaseMs;
    if (leaseMs !== undefined) {
      const others = replicas.slice(1).map((_, i) => `replica-${i + 2}`);
      console.log(
        `lease: replica-1 held the task's lease, renewed by heartbeat; had replica-1 died, ` +
          `${others.join(' or ')} would have ended the task FAILED once ${leaseMs} ms ` +
          'passed without a heartbeat (R53)',
      );
    }
    ok = result.ok;
  } finally {
    // The replicas go first: dropping forces their sessions closed. How they
    // ended is reported by the run's own stopAll, which sees the same stops.
    await workers.stopAll();
    await database.drop();
    console.log(`database: dropped ${database.name}`);
  }
  console.log(
    ok
      ? `every reminder ended in the state replica-1's stream showed, as all ${mode.replicas} replicas list it`
      : "some reminders did not end in the state replica-1's stream showed",
  );
  return ok;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`demo failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
