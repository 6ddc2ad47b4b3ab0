import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Role } from '@a2a-js/sdk';
import type { Binding } from '@a2a-reminders/client';
import { BINDINGS, delegationRequest } from '@a2a-reminders/client';
import { messageText } from '@a2a-reminders/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PG_URL } from './cli-args.js';
import { cancelCommand, injectCommand, listCommand, watchCommand } from './commands.js';
import type { DemoResult } from './demo.js';
import { runDemo } from './demo.js';
import { DEMO_CASES } from './demo-cases.js';
import { databaseExists, dropDatabase } from './demo-database.js';
import { connectToWorker } from './worker-connection.js';
import type { WorkerProcess } from './worker-process.js';
import { spawnWorker, stopWorker } from './worker-process.js';

// The built apps: `turbo run test` builds both first (apps/coordinator/turbo.json).
const WORKER_MAIN = fileURLToPath(new URL('../../worker/dist/main.js', import.meta.url));
const COORDINATOR_MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const RUN_DEMO = fileURLToPath(new URL('../dist/run-demo.js', import.meta.url));

// Long enough that the three cost alerts land within one turn even on a busy machine;
// the demo's triggers are event-driven, so nothing else depends on it.
const TURN_MS = '600';

/** Runs a built script to its end and returns its exit code and output. */
function run(script: string, args: readonly string[]) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the coordinator against a spawned worker', () => {
  let worker: WorkerProcess;
  let cardUrl: string;
  const results = new Map<string, { result: DemoResult; lines: string[] }>();
  const workerLog: string[] = [];

  beforeAll(async () => {
    for (const file of [WORKER_MAIN, COORDINATOR_MAIN, RUN_DEMO]) {
      if (!existsSync(file))
        throw new Error(`${file} is missing: build the apps first (npx turbo run build)`);
    }
    worker = await spawnWorker(
      WORKER_MAIN,
      ['--port', '0', '--grpc-port', '0', '--turn-ms', TURN_MS, '--turns', '12'],
      // The SDK logs the errors the CLI tests provoke; kept for failure messages only.
      { onStderr: (line) => workerLog.push(line) },
    );
    cardUrl = `${worker.httpBaseUrl}/.well-known/agent-card.json`;
    // The three demos are independent tasks; run them side by side.
    await Promise.all(BINDINGS.map((binding) => demoOver(binding)));
  });

  afterAll(async () => {
    if (worker) await stopWorker(worker.child);
  });

  /** Each binding's demo runs once; the tests below read its result. */
  const demoOver = async (binding: Binding) => {
    let entry = results.get(binding);
    if (entry === undefined) {
      const lines: string[] = [];
      const result = await runDemo({
        connection: { url: cardUrl, binding, headers: {} },
        write: (line) => lines.push(line),
        // A hang guard only; the demo's steps wait on observed events.
        timeoutMs: 110_000,
      });
      entry = { result, lines };
      results.set(binding, entry);
    }
    return entry;
  };

  describe.each(BINDINGS)('demo over %s', (binding) => {
    const demo = () => demoOver(binding);

    it('plays every case and every reminder reaches its expected fate', async () => {
      const { result, lines } = await demo();
      expect(result.problems, [...lines, '-- worker stderr', ...workerLog].join('\n')).toEqual([]);
      expect(result.ok).toBe(true);
      expect(result.finalState).toBe('COMPLETED');
    });

    it('surfaces the rebase and CI reminders on a turn, then expires them by TTL', async () => {
      const { result } = await demo();
      for (const id of ['upstream-pr-4521', 'ci-run-88', 'cost-90']) {
        const outcome = result.outcomes.find((o) => o.id === id);
        expect(outcome?.state, id).toBe('EXPIRED');
        expect(outcome?.reachedTurns, id).toHaveLength(1);
        expect(outcome?.firstTurn, id).toBe(outcome?.reachedTurns[0]);
        expect(outcome?.expiredByTtl, id).toBe(true);
      }
      // The chain: each case was played once the previous reminder had reached a turn.
      const turn = (id: string) => result.outcomes.find((o) => o.id === id)?.firstTurn ?? 0;
      expect(turn('ci-run-88')).toBeGreaterThan(turn('upstream-pr-4521'));
      expect(turn('cost-90')).toBeGreaterThan(turn('ci-run-88'));
    });

    it('collapses the cost alerts: only the latest reaches the worker, the others are displaced', async () => {
      const { result } = await demo();
      const cost = result.outcomes.filter((o) => o.id.startsWith('cost-'));
      expect(cost.filter((o) => o.reachedTurns.length > 0).map((o) => o.id)).toEqual(['cost-90']);
      expect(cost.map((o) => [o.id, o.state, o.displacedBy])).toEqual([
        ['cost-50', 'DISPLACED', 'cost-75'],
        ['cost-75', 'DISPLACED', 'cost-90'],
        ['cost-90', 'EXPIRED', ''],
      ]);
      const displacedEvents = result.events
        .filter((e) => e.event.case === 'displaced')
        .map((e) => [e.reminderId, e.event.case === 'displaced' ? e.event.value.displacedBy : '']);
      expect(displacedEvents).toEqual([
        ['cost-50', 'cost-75'],
        ['cost-75', 'cost-90'],
      ]);
    });

    it('prints a timeline of injects, turns reached, displacements, expiries and progress', async () => {
      const { lines } = await demo();
      const text = lines.join('\n');
      expect(text).toContain(`== demo over ${binding}`);
      expect(text).toMatch(/inject +upstream-pr-4521 accepted PENDING/);
      expect(text).toMatch(/reached +upstream-pr-4521 reached the worker's model at turn \d+/);
      expect(text).toMatch(/displaced +cost-50 displaced by cost-75/);
      expect(text).toMatch(
        /expired +cost-90 expired after turn \d+: surfaced on 1 turn, its TTL was used up/,
      );
      expect(text).toMatch(/progress +turn \d+\/12 rebase: /);
      expect(text).toMatch(/progress +turn \d+\/12 wrap-up: /);
      expect(text).toMatch(/state +COMPLETED/);
      expect(text).toContain('result: every reminder reached its expected fate');
    });

    it("leaves no user message made from a reminder in the worker's task history (GetTask)", async () => {
      const { result } = await demo();
      const connection = await connectToWorker({ url: cardUrl, binding, headers: {} });
      try {
        const task = await connection.client.getTask({ tenant: '', id: result.taskId });
        const users = task.history.filter((m) => m.role === Role.ROLE_USER);
        expect(users).toHaveLength(1);
        const history = task.history.map(messageText).join('\n');
        for (const id of ['Upstream PR #4521', 'CI run 88', 'Cost monitor']) {
          expect(history).not.toContain(id);
        }
        expect(result.userMessagesInHistory).toBe(1);
        expect(result.remindersInHistory).toEqual([]);
      } finally {
        connection.close();
      }
    });
  });

  it('inject, list, cancel and watch work one by one on a running task', async () => {
    const connection = { url: cardUrl, binding: 'rest' as const, headers: {} };
    const sdk = await connectToWorker(connection);
    const sent = await sdk.client.sendMessage(delegationRequest('Rename the config loader'));
    sdk.close();
    if (!('status' in sent)) throw new Error('expected a task');
    const taskId = sent.id;

    const watched: string[] = [];
    const watching = watchCommand({ kind: 'watch', connection, tenant: '', taskId }, (l) =>
      watched.push(l),
    );
    // Inject only once the watcher's stream is open, so it sees every event; a
    // watch that fails first fails the test at once instead of at its timeout.
    let watchEnded = false;
    const markEnded = () => {
      watchEnded = true;
    };
    watching.then(markEnded, markEnded);
    while (!watched.some((l) => / subscribe /.test(l))) {
      if (watchEnded) {
        await watching;
        throw new Error(`watch ended before it subscribed: ${watched.join(' | ')}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }

    const out: string[] = [];
    const write = (l: string) => out.push(l);
    const inject = (id: string, body: string, ttlTurns: number) =>
      injectCommand(
        {
          kind: 'inject',
          connection,
          tenant: '',
          taskId,
          json: false,
          reminder: { id, body, ttlTurns },
        },
        write,
      );
    await inject('keep', 'CI run 90 passed.', 2);
    await inject('drop-me', 'Ignore the lint job.', 20);
    await cancelCommand(
      { kind: 'cancel', connection, tenant: '', taskId, reminderId: 'drop-me', json: false },
      write,
    );
    expect(out.filter((l) => l.startsWith('drop-me'))).toEqual([
      expect.stringMatching(/^drop-me +PENDING/),
      expect.stringMatching(/^drop-me +CANCELLED/),
    ]);

    await watching;
    expect(watched.join('\n')).toMatch(/reached +keep reached the worker's model at turn \d+/);
    expect(watched.join('\n')).toMatch(/cancelled +drop-me cancelled after \d+ turn\(s\)/);
    expect(watched.at(-1)).toMatch(/state +COMPLETED/);

    // A2A refuses to subscribe to an ended task; watch prints the end it missed, by name.
    const late: string[] = [];
    await watchCommand({ kind: 'watch', connection, tenant: '', taskId }, (l) => late.push(l));
    expect(late).toEqual([
      expect.stringMatching(
        new RegExp(`state +task ${taskId} had already ended: COMPLETED: Done in \\d+ turns\\.$`),
      ),
    ]);

    const listed: string[] = [];
    const list = { kind: 'list', connection, tenant: '', taskId, liveOnly: false } as const;
    await listCommand({ ...list, json: true }, (l) => listed.push(l));
    const json = JSON.parse(listed.join('\n')) as {
      reminders: Array<{ reminder: { id: string }; state: string }>;
    };
    expect(json.reminders.map((r) => [r.reminder.id, r.state])).toEqual([
      ['keep', 'REMINDER_STATE_EXPIRED'],
      ['drop-me', 'REMINDER_STATE_CANCELLED'],
    ]);
    // R49: pages of one are followed to the end; --page-token "" prints the first page only.
    const paged: string[] = [];
    await listCommand({ ...list, pageSize: 1, json: false }, (l) => paged.push(l));
    expect(paged.map((l) => l.split(/ +/, 2).join(' '))).toEqual([
      'keep EXPIRED',
      'drop-me CANCELLED',
    ]);
    const onePage: string[] = [];
    await listCommand({ ...list, pageSize: 1, pageToken: '', json: false }, (l) => onePage.push(l));
    expect(onePage).toEqual([paged[0], expect.stringMatching(/^next page: --page-token \S+$/)]);
    const token = onePage[1]?.split(' ').at(-1) ?? '';
    const secondPage: string[] = [];
    await listCommand({ ...list, pageSize: 1, pageToken: token, json: false }, (l) =>
      secondPage.push(l),
    );
    expect(secondPage).toEqual([paged[1]]);
    const live: string[] = [];
    await listCommand({ ...list, liveOnly: true, json: false }, (l) => live.push(l));
    expect(live).toEqual([`task ${taskId} has no live reminders`]);
  });

  it('the CLI prints help and usage errors, errors with their code, and watches an ended task', async () => {
    const help = await run(COORDINATOR_MAIN, ['inject', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--dedupe-key');

    const usage = await run(COORDINATOR_MAIN, ['list']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--task-id is required');

    const done = (await demoOver('grpc')).result.taskId;
    const refused = await run(COORDINATOR_MAIN, [
      'inject',
      '--url',
      cardUrl,
      '--binding',
      'grpc',
      '--task-id',
      done,
      '--id',
      'too-late',
      '--body',
      'The task is over.',
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('error: TASK_TERMINAL');

    const listed = await run(COORDINATOR_MAIN, [
      'list',
      '--url',
      cardUrl,
      '--binding',
      'jsonrpc',
      '--task-id',
      done,
    ]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^cost-50 +DISPLACED +displaced by cost-75/m);

    // watch: an ended task's state by name (exit 0); A2A's own errors with their reason.
    const watched = await run(COORDINATOR_MAIN, ['watch', '--url', cardUrl, '--task-id', done]);
    expect(watched.code, watched.stderr).toBe(0);
    expect(watched.stdout).toMatch(/had already ended: COMPLETED: Done in \d+ turns\.$/m);
    const unknown = await run(COORDINATOR_MAIN, ['watch', '--url', cardUrl, '--task-id', 'nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^error: TASK_NOT_FOUND: .*nope/);

    // No command: the usage, on stderr, and exit 2.
    const bare = await run(COORDINATOR_MAIN, []);
    expect([bare.code, bare.stdout]).toEqual([2, '']);
    expect(bare.stderr).toContain('error: a command is required');
    expect(bare.stderr).toContain('Usage: a2a-reminders-coordinator <command>');
  });
});

describe('run-demo (npm run demo)', () => {
  it('runs the demo over every binding and the forwarding chain, exits 0 and stops its workers', async () => {
    const { code, stdout, stderr } = await run(RUN_DEMO, ['--turn-ms', TURN_MS]);
    expect(code, `${stdout}\n${stderr}`).toBe(0);
    for (const binding of BINDINGS)
      expect(stdout).toMatch(new RegExp(`^ok +${binding} +task \\S+ COMPLETED$`, 'm'));
    expect(stdout).toContain('every reminder reached its expected fate');
    expect(stdout).toMatch(/^ok +forward +task \S+ → \S+$/m);
    // The workers it started are gone: their ports refuse connections.
    const bases = [
      /^worker ready: http=(\S+)/m,
      /^test agent ready: http=(\S+)/m,
      /^delegating worker ready: http=([^,\s]+)/m,
    ].map((line) => line.exec(stdout)?.[1]);
    for (const base of bases) {
      expect(base).toBeDefined();
      await expect(fetch(`${base}/.well-known/agent-card.json`)).rejects.toThrow();
    }
  });
});

describe('run-demo --replicas 3 (npm run demo -- --replicas 3)', () => {
  // The database tests' server (README: Development); the demo's own default otherwise.
  const server = process.env.A2A_REMINDERS_TEST_PG_URL ?? DEFAULT_PG_URL;
  let database: string | undefined;
  let output: Awaited<ReturnType<typeof run>>;

  beforeAll(async () => {
    output = await run(RUN_DEMO, ['--replicas', '3', '--pg-url', server, '--turn-ms', TURN_MS]);
    database = /^database: created (\S+) on /m.exec(output.stdout)?.[1];
  });

  afterAll(async () => {
    // Only if the demo failed to: the test leaves no database behind either way.
    if (database !== undefined) await dropDatabase(server, database);
  });

  it('exits 0 with the final check passed', () => {
    const { code, stdout, stderr } = output;
    expect(code, `${stdout}\n${stderr}`).toBe(0);
    expect(stdout.trimEnd().split('\n').at(-1)).toBe(
      "every reminder ended in the state replica-1's stream showed, as all 3 replicas list it",
    );
  });

  it('names the replica and binding that accepted each reminder: replicas 2 and 3, every binding', () => {
    const routes = DEMO_CASES.flatMap((c) => c.reminders).map(({ reminder }) => {
      const accepted = new RegExp(
        `^\\[(replica-[23]) (jsonrpc|rest|grpc) +\\+[\\d.]+s\\] inject +${reminder.id} accepted PENDING`,
        'm',
      ).exec(output.stdout);
      expect(accepted, reminder.id).not.toBeNull();
      return { replica: accepted?.[1], binding: accepted?.[2] };
    });
    expect(new Set(routes.map((r) => r.replica))).toEqual(new Set(['replica-2', 'replica-3']));
    expect(new Set(routes.map((r) => r.binding))).toEqual(new Set(BINDINGS));
    for (const n of [1, 2, 3])
      expect(output.stdout).toMatch(new RegExp(`^replica-${n} ready: `, 'm'));
  });

  it("shows every reminder's fate on replica-1's stream, as every replica lists it", () => {
    for (const { reminder, expected } of DEMO_CASES.flatMap((c) => c.reminders)) {
      const event = expected.state.toLowerCase();
      expect(output.stdout).toMatch(
        new RegExp(`^\\[replica-1 stream +\\+[\\d.]+s\\] ${event} +${reminder.id} `, 'm'),
      );
      expect(output.stdout).toMatch(
        new RegExp(
          `^ +${reminder.id} +accepted by replica-[23] over \\w+ +stream: ${expected.state} +` +
            `listed ${expected.state} on all 3 +ok$`,
          'm',
        ),
      );
    }
    expect(output.stdout).toMatch(
      /^\[replica-1 stream +\+[\d.]+s\] state +COMPLETED: Done in \d+ turns\.$/m,
    );
  });

  it('drops the database it created, and stops its replicas', async () => {
    expect(database).toMatch(/^a2a_reminders_demo_[0-9a-f]+$/);
    expect(output.stdout).toContain(`database: dropped ${database}`);
    expect(await databaseExists(server, database ?? '')).toBe(false);
    for (const [, base] of output.stdout.matchAll(/^replica-\d ready: http=(\S+)/gm)) {
      await expect(fetch(`${base}/.well-known/agent-card.json`)).rejects.toThrow();
    }
  });
});
