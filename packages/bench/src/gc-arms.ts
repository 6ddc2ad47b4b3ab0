// What each arm leaves to the garbage collector (README, Where the time goes):
// `npm run bench:gc -w @a2a-reminders/bench -- --arms grpc-get,grpc-inject-plain,grpc-inject`.
// The bench server runs in its own process with V8's --trace-gc-nvp, each arm's load in its own
// process, as in the benchmark. Per arm and round: a warm-up, the benchmark's steps before a
// slice (plain reminders ended, waiting displacement events published, a full GC), the measured
// window, then those events published again; the collections from the window's start to that
// publish are summed per request. A diagnostic, not a run that judges the goals.
// Flags: --arms a,b,… --rounds 2 --warmup-ms 2000 --window-ms 4000
//   --node-flags "<V8 flags for the server, e.g. --max-semi-space-size=64>"
//   --server-args "<bench server flags, e.g. --max-retained-finals 0>" --no-full-gc
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { ARMS, isArmName } from './arms.js';
import { numberFlag, stringFlag } from './cli-args.js';
import { type GcLine, type GcPerRequest, gcPerRequest, parseGcLine } from './gc-trace.js';
import { LoadProcess } from './load-process.js';
import { stopChild } from './server-process.js';
import { settleDelayedEvents } from './settle-delayed.js';
import { parseReadyLine, type ServerReady } from './wire.js';

const argv = process.argv.slice(2);
const arms = (stringFlag(argv, '--arms') ?? 'grpc-get,grpc-inject-plain,grpc-inject')
  .split(',')
  .filter(isArmName);
const rounds = numberFlag(argv, '--rounds', 2);
const warmupMs = numberFlag(argv, '--warmup-ms', 2000);
const windowMs = numberFlag(argv, '--window-ms', 4000);
const words = (flag: string) => (stringFlag(argv, flag) ?? '').split(' ').filter((w) => w !== '');
const nodeFlags = words('--node-flags');
const serverArgs = words('--server-args');
// The benchmark forces a full GC before every slice; `--no-full-gc` leaves it out.
const fullGcFirst = !argv.includes('--no-full-gc');

const script = fileURLToPath(new URL('./bench-server.js', import.meta.url));
const server = spawn(
  process.execPath,
  ['--expose-gc', '--trace-gc-nvp', ...nodeFlags, script, ...serverArgs],
  // The server stops when its stdin ends (bench-server.ts), so this process holds it.
  { stdio: ['pipe', 'pipe', 'inherit'] },
);
const stopAll = () => {
  LoadProcess.stopAll();
  stopChild(server);
};
process.on('SIGINT', () => {
  stopAll();
  process.exit(130);
});

let window: GcLine[] | undefined;
const ready = await new Promise<ServerReady>((resolve, reject) => {
  if (server.stdout === null) throw new Error('bench server has no stdout');
  createInterface({ input: server.stdout }).on('line', (line) => {
    const readyLine = parseReadyLine(line);
    if (readyLine !== undefined) resolve(readyLine);
    const gc = parseGcLine(line);
    if (gc !== undefined) window?.push(gc);
  });
  server.once('exit', (code) => reject(new Error(`bench server exited early (${code})`)));
});

const { httpPort, grpcPort } = ready;
const admin = async (method: 'GET' | 'POST', path: string) => {
  const res = await fetch(`http://127.0.0.1:${httpPort}${path}`, { method });
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status}`);
  return res.json();
};
const post = (path: string) => admin('POST', path);

const rows: { label: string; round: number; requests: number; errors: number; gc: GcPerRequest }[] =
  [];
try {
  for (let round = 1; round <= rounds; round += 1) {
    for (const arm of arms) {
      const kind = ARMS[arm].kind;
      if (kind === 'send-reminder') await post('/admin/followup-tasks');
      const load = await LoadProcess.start(arm, httpPort, grpcPort);
      try {
        await load.run(warmupMs);
        if (kind === 'inject-plain') await post('/admin/end-plain-reminders');
        await settleDelayedEvents(post);
        if (fullGcFirst) await admin('GET', '/admin/stats?gc=1');
        // The full GC's own line is printed before the publish answers; let it arrive first.
        await sleep(100);
        const lines: GcLine[] = [];
        window = lines;
        const result = await load.run(windowMs);
        await settleDelayedEvents(post);
        await sleep(100);
        window = undefined;
        const gc = gcPerRequest(lines, result.requests);
        rows.push({
          label: ARMS[arm].label,
          round,
          requests: result.requests,
          errors: result.errors,
          gc,
        });
        console.log(`round ${round}: ${ARMS[arm].label} done`);
      } finally {
        load.stop();
      }
    }
  }
} finally {
  stopAll();
}

const flags = [...nodeFlags, ...serverArgs, ...(fullGcFirst ? [] : ['--no-full-gc'])];
console.log(
  `\nper request, measured window and its waiting events' publish (flags: ${flags.join(' ') || 'none'})`,
);
console.log(
  `${'arm'.padEnd(38)} round  requests  scavenges  scavenge µs  promoted B  survived B  allocated B  full GCs  full GC µs  errors`,
);
const cell = (value: number, width: number, digits = 0) => value.toFixed(digits).padStart(width);
for (const r of rows) {
  const g = r.gc;
  console.log(
    `${r.label.padEnd(38)} ${cell(r.round, 5)} ${cell(r.requests, 9)} ${cell(g.scavenges, 10)} ${cell(g.scavengeUs, 12, 1)} ${cell(g.promotedBytes, 11)} ${cell(g.survivedBytes, 11)} ${cell(g.allocatedBytes, 12)} ${cell(g.fullCollections, 9)} ${cell(g.fullCollectionUs, 11, 1)} ${cell(r.errors, 7)}`,
  );
}
process.exit(0);
