// Store benchmark (README, Stores): InjectTaskReminder over JSON-RPC and the
// turn boundary (nothing pending) on the in-memory, SQLite and PostgreSQL
// reminder stores, in one interleaved run: every round measures each store
// once, in a rotated order, so drift of the machine hits all three alike.
// Ratios to memory are taken per round and summarised by their median.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TestDatabase } from '@a2a-reminders/database/testing';
import { createTestDatabase } from '@a2a-reminders/database/testing';
import { numberFlag } from './cli-args.js';
import type { LoopResult } from './closed-loop.js';
import { LoadProcess } from './load-process.js';
import { processCpuUs } from './proc-cpu.js';
import { spread } from './stats.js';
import { parseReadyLine, type ServerReady } from './wire.js';

const argv = process.argv.slice(2);
const rounds = numberFlag(argv, '--rounds', 3);
const sliceMs = numberFlag(argv, '--slice-ms', 5000);
const warmupMs = numberFlag(argv, '--warmup-ms', 1000);
const concurrency = 16;

type StoreName = 'memory' | 'sqlite' | 'postgres';
const STORES: StoreName[] = ['memory', 'sqlite', 'postgres'];
/** Goals of issue 9: inject req/s at concurrency 16, as a fraction of memory's. */
const INJECT_GOAL: Record<Exclude<StoreName, 'memory'>, number> = { sqlite: 0.7, postgres: 0.5 };

interface TurnResult extends LoopResult {
  readonly statementsPerTurn: number;
  readonly reminderTableStatementsPerTurn: number;
  readonly taskTableStatementsPerTurn: number;
}

interface Measured {
  readonly reqPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly serverCpuUsPerReq: number;
  readonly errors: number;
}

interface Server extends ServerReady {
  readonly store: StoreName;
  stop(): void;
}

const serverScript = fileURLToPath(new URL('./store-bench-server.js', import.meta.url));

async function startServer(store: StoreName, url: string): Promise<Server> {
  const child = spawn(process.execPath, [serverScript, '--store', url], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const ready = await new Promise<ServerReady>((resolve, reject) => {
    let buffered = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      for (const line of buffered.split('\n')) {
        const parsed = parseReadyLine(line);
        if (parsed !== undefined) resolve(parsed);
      }
    });
    child.once('exit', (code) => reject(new Error(`${store} server exited early (${code})`)));
  });
  return { ...ready, store, stop: () => child.kill('SIGTERM') };
}

async function turns(server: Server, ms: number): Promise<TurnResult> {
  const res = await fetch(
    `http://127.0.0.1:${server.httpPort}/admin/turns?ms=${ms}&concurrency=${concurrency}`,
    { method: 'POST' },
  );
  return (await res.json()) as TurnResult;
}

async function withCpu<T extends LoopResult>(
  pid: number,
  run: () => Promise<T>,
): Promise<[T, Measured]> {
  const cpu0 = await processCpuUs(pid);
  const result = await run();
  const cpu = (await processCpuUs(pid)) - cpu0;
  return [
    result,
    {
      reqPerSec: result.reqPerSec,
      p50Ms: result.p50Ms,
      p99Ms: result.p99Ms,
      serverCpuUsPerReq: result.requests === 0 ? 0 : cpu / result.requests,
      errors: result.errors,
    },
  ];
}

const fmt = (n: number, digits = 0) => n.toFixed(digits);
const range = (values: number[], digits = 0) => {
  const s = spread(values);
  return `${fmt(s.median, digits)} (${fmt(s.min, digits)}–${fmt(s.max, digits)})`;
};

const databases: TestDatabase[] = [];
const servers: Server[] = [];
const loads: LoadProcess[] = [];
try {
  const urls: Record<StoreName, string> = { memory: 'memory', sqlite: '', postgres: '' };
  for (const store of ['sqlite', 'postgres'] as const) {
    const database = await createTestDatabase(store);
    databases.push(database);
    urls[store] = database.url;
  }
  for (const store of STORES) servers.push(await startServer(store, urls[store]));
  for (const server of servers)
    loads.push(await LoadProcess.start('jsonrpc-inject', server.httpPort, 0));

  const inject: Record<StoreName, Measured[]> = { memory: [], sqlite: [], postgres: [] };
  const turn: Record<StoreName, Measured[]> = { memory: [], sqlite: [], postgres: [] };
  const statements: Record<StoreName, TurnResult[]> = { memory: [], sqlite: [], postgres: [] };
  for (let round = 0; round < rounds; round += 1) {
    const order = [...STORES.slice(round % 3), ...STORES.slice(0, round % 3)];
    for (const store of order) {
      const i = STORES.indexOf(store);
      const server = servers[i];
      const load = loads[i];
      if (server === undefined || load === undefined) throw new Error('missing server');
      await load.run(warmupMs);
      inject[store].push((await withCpu(server.pid, () => load.run(sliceMs)))[1]);
      await turns(server, warmupMs);
      const [result, measured] = await withCpu(server.pid, () => turns(server, sliceMs));
      turn[store].push(measured);
      statements[store].push(result);
      console.error(
        `round ${round + 1}/${rounds} ${store}: inject ${fmt(inject[store].at(-1)?.reqPerSec ?? 0)} req/s, turn ${fmt(measured.reqPerSec)}/s`,
      );
    }
  }

  console.log(
    `Store bench: ${rounds} rounds × (${warmupMs} ms warm-up + ${sliceMs} ms), concurrency ${concurrency}`,
  );
  console.log(
    "inject: JSON-RPC InjectTaskReminder, each displacing its task's previous reminder (1000 tasks)",
  );
  console.log('turn: beginTurn in the server process on 200 tasks with nothing pending\n');
  const header = ['arm', 'req/s', 'p50 ms', 'p99 ms', 'server CPU µs/req', 'errors'];
  const rows: string[][] = [];
  for (const [arm, data] of [
    ['inject', inject],
    ['turn boundary', turn],
  ] as const) {
    for (const store of STORES) {
      const m = data[store];
      rows.push([
        `${store} ${arm}`,
        range(m.map((x) => x.reqPerSec)),
        range(
          m.map((x) => x.p50Ms),
          2,
        ),
        range(
          m.map((x) => x.p99Ms),
          2,
        ),
        range(m.map((x) => x.serverCpuUsPerReq)),
        String(m.reduce((n, x) => n + x.errors, 0)),
      ]);
    }
  }
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? '').length)));
  for (const r of [header, ...rows])
    console.log(r.map((v, c) => v.padStart(widths[c] ?? 0)).join('  '));

  console.log('\nratio to memory, per round → median (goal)');
  for (const store of ['sqlite', 'postgres'] as const) {
    for (const [arm, data] of [
      ['inject', inject],
      ['turn boundary', turn],
    ] as const) {
      const ratios = data[store].map(
        (m, r) => m.reqPerSec / (data.memory[r]?.reqPerSec ?? Number.NaN),
      );
      const med = spread(ratios).median;
      const goal = arm === 'inject' ? INJECT_GOAL[store] : undefined;
      const verdict =
        goal === undefined ? 'info' : med >= goal ? `≥ ${goal}: PASS` : `≥ ${goal}: FAIL`;
      console.log(
        `${`${store} ${arm} req/s`.padEnd(30)} ${ratios.map((x) => fmt(x, 2)).join(' ')}  → ${fmt(med, 2)}  ${verdict}`,
      );
    }
  }
  console.log(
    '\nstatements per turn boundary with nothing pending (counted from the Kysely query log)',
  );
  for (const store of ['sqlite', 'postgres'] as const) {
    const s = statements[store];
    const avg = (f: (t: TurnResult) => number) => fmt(spread(s.map(f)).median, 2);
    console.log(
      `${store.padEnd(9)} all ${avg((t) => t.statementsPerTurn)} (begin and commit included), on the task row ${avg((t) => t.taskTableStatementsPerTurn)}, on the reminders table ${avg((t) => t.reminderTableStatementsPerTurn)}`,
    );
  }
} finally {
  for (const load of loads) load.stop();
  for (const server of servers) server.stop();
  for (const database of databases) await database.drop().catch(() => {});
}
process.exit(0);
