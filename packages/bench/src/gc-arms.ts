// What each arm leaves to the garbage collector (README, Where the time goes):
// `npm run bench:gc -w @a2a-reminders/bench -- --arms grpc-get,grpc-inject-plain,grpc-inject`.
// The bench server runs in its own process with V8's --trace-gc-nvp, each arm's load in its own
// process, as in the benchmark, with the benchmark's steps around a slice of one arm (its
// interleaved groups aside, README, What it measures): a warm-up, waiting
// displacement events published, a full GC, the measured window, its own waiting events
// published, and after a plain arm its reminders ended. The collections from the window's start
// to that publish are summed per request. Arms run in the order given, every round (the
// benchmark rotates them). A diagnostic, not a run that judges the goals.
// Flags: --arms a,b,… --rounds 2 --warmup-ms 2000 --window-ms 4000 --no-full-gc
//   --node-flags "<V8 flags for the server alone, e.g. --max-semi-space-size=64>"
//   --server-args "<bench server flags, e.g. --max-retained-finals 0>"
import { setTimeout as sleep } from 'node:timers/promises';
import { ARMS } from './arms.js';
import { armsFlag, numberFlag, stringFlag } from './cli-args.js';
import { type GcLine, type GcWindow, gcWindow, parseGcLine } from './gc-trace.js';
import { LoadProcess } from './load-process.js';
import { startServer } from './server-process.js';
import { settleDelayedEvents } from './settle-delayed.js';
import { aroundSlice, serverSliceHost } from './slice-steps.js';

const argv = process.argv.slice(2);
const arms = armsFlag(argv) ?? (['grpc-get', 'grpc-inject-plain', 'grpc-inject'] as const);
const rounds = numberFlag(argv, '--rounds', 2);
const warmupMs = numberFlag(argv, '--warmup-ms', 2000);
const windowMs = numberFlag(argv, '--window-ms', 4000);
const words = (flag: string) => (stringFlag(argv, flag) ?? '').split(' ').filter((w) => w !== '');
const nodeFlags = words('--node-flags');
const serverArgs = words('--server-args');
// The benchmark forces a full GC before every slice; `--no-full-gc` leaves it out.
const fullGcFirst = !argv.includes('--no-full-gc');

let window: GcLine[] | undefined;
const server = await startServer(serverArgs, undefined, {
  nodeFlags: ['--trace-gc-nvp', ...nodeFlags],
  onLine: (line) => {
    const gc = parseGcLine(line);
    if (gc !== undefined) window?.push(gc);
  },
});
const stopAll = () => {
  LoadProcess.stopAll();
  server.stop();
};
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    stopAll();
    process.exit(130);
  });
}
const post = (path: string) => server.admin('POST', path);
// V8 prints a collection's line as it ends, before the server answers the request that caused
// it; this lets the lines already written reach this process.
const drain = () => sleep(100);

interface Row {
  readonly label: string;
  readonly round: number;
  readonly requests: number;
  readonly errors: number;
  readonly gc: GcWindow;
}
const rows: Row[] = [];
try {
  for (let round = 1; round <= rounds; round += 1) {
    for (const arm of arms) {
      const { kind, label } = ARMS[arm];
      if (kind === 'send-reminder') await post('/admin/followup-tasks');
      const load = await LoadProcess.start(arm, server.httpPort, server.grpcPort);
      const lines: GcLine[] = [];
      try {
        const { window: result } = await aroundSlice(
          serverSliceHost(server),
          [kind],
          {
            warmup: async () => {
              if (warmupMs > 0) await load.run(warmupMs);
            },
            fullGc: fullGcFirst,
          },
          async () => {
            await drain();
            window = lines;
            const loop = await load.run(windowMs);
            await settleDelayedEvents(post);
            await drain();
            window = undefined;
            return loop;
          },
        );
        rows.push({
          label,
          round,
          requests: result.requests,
          errors: result.errors,
          gc: gcWindow(lines, result.requests),
        });
        console.log(`round ${round}: ${label} done`);
      } finally {
        load.stop();
      }
      // As in the benchmark: no arm after this one runs on the pool's follow-ups.
      if (kind === 'send-reminder') await server.admin('DELETE', '/admin/followup-tasks');
    }
  }
} finally {
  stopAll();
}

const flags = [...nodeFlags, ...serverArgs, ...(fullGcFirst ? [] : ['--no-full-gc'])];
console.log(
  `\nwindow and its waiting events' publish; flags: ${flags.join(' ') || 'none'}\n` +
    'young/full: collections in the window; pause µs, promoted/survived/allocated B: per request',
);
const columns = [
  ['arm', 38],
  ['round', 5],
  ['requests', 9],
  ['young', 6],
  ['young µs', 9],
  ['full', 5],
  ['full µs', 8],
  ['promoted B', 11],
  ['survived B', 11],
  ['allocated B', 12],
  ['errors', 7],
] as const;
const line = (cells: readonly string[]) =>
  cells
    .map((c, i) => {
      const width = columns[i]?.[1] ?? 0;
      return i === 0 ? c.padEnd(width) : c.padStart(width);
    })
    .join(' ');
console.log(line(columns.map(([name]) => name)));
for (const r of rows) {
  const g = r.gc;
  console.log(
    line([
      r.label,
      String(r.round),
      String(r.requests),
      String(g.youngCollections),
      g.youngPauseUsPerRequest.toFixed(1),
      String(g.fullCollections),
      g.fullPauseUsPerRequest.toFixed(1),
      g.promotedPerRequest.toFixed(0),
      g.survivedPerRequest.toFixed(0),
      g.allocatedPerRequest.toFixed(0),
      String(r.errors),
    ]),
  );
}
process.exit(0);
