import type { LoopResult } from './closed-loop.js';
import { type CpuMark, cpuMark, foreignPct, waitForQuiet } from './cpu-gate.js';
import { processThreadsCpu } from './proc-cpu.js';
import type { ServerProcess } from './server-process.js';
import { settleDelayedEvents } from './settle-delayed.js';
import type { SliceResult } from './slice.js';

/** One measured run of a load process and what the server and the machine spent over it. */
export interface ServerWindow {
  readonly result: LoopResult;
  /** Server CPU (all threads) over the run and the publish after it, µs. */
  readonly cpuUs: number;
  /** The main thread's share of `cpuUs`, µs. */
  readonly mainCpuUs: number;
  /** The part of `cpuUs` spent in the publish after the run (0 without one), µs. */
  readonly publishCpuUs: number;
  /** Wall time of the run itself, ms. */
  readonly loopMs: number;
  /** CPU other processes used over the window, % of one core (the contention gate). */
  readonly foreignPct: number;
  /** Wall time of the whole window, the publish included, ms. */
  readonly windowMs: number;
}

/**
 * A slice's server figures of slice.ts: CPU per request, and CPU as % of a
 * core over the loops' wall time (the publish after a loop only adds its
 * delayed events' CPU); with `publishCpuUs`, the displacing inject's, that
 * publish per request too.
 */
export function serverCpuFigures(
  requests: number,
  cpuUs: number,
  mainCpuUs: number,
  loopMs: number,
  publishCpuUs?: number,
): Pick<
  SliceResult,
  'serverCpuUsPerReq' | 'serverMainCpuUsPerReq' | 'serverCpuPct' | 'publishCpuUsPerReq'
> {
  const perReq = (us: number) => (requests === 0 ? Number.NaN : us / requests);
  return {
    serverCpuUsPerReq: perReq(cpuUs),
    serverMainCpuUsPerReq: perReq(mainCpuUs),
    serverCpuPct: (100 * cpuUs) / (loopMs * 1000),
    ...(publishCpuUs === undefined ? {} : { publishCpuUsPerReq: perReq(publishCpuUs) }),
  };
}

/**
 * The measured window of README, What it measures: a wait (bounded) for
 * other processes to go quiet (unless `waitQuiet` is false), the run, then
 * (unless `publish` is false) `POST /admin/publish-delayed` before the
 * server's CPU is read, so the run is charged for all of its own delayed
 * displacement events (settle-delayed.ts).
 */
export async function serverWindow(
  server: ServerProcess,
  pids: readonly number[],
  quietPct: number,
  run: () => Promise<LoopResult>,
  { waitQuiet = true, publish = true }: { waitQuiet?: boolean; publish?: boolean } = {},
): Promise<ServerWindow> {
  if (waitQuiet) await waitForQuiet(pids, quietPct);
  const cpu0 = await processThreadsCpu(server.pid);
  const mark0 = await cpuMark(pids);
  const result = await run();
  const loopEnd = await cpuMark(pids);
  const cpuRun = publish ? await processThreadsCpu(server.pid) : undefined;
  if (publish) await settleDelayedEvents((path) => server.admin('POST', path));
  const cpu1 = await processThreadsCpu(server.pid);
  const mark1: CpuMark = await cpuMark(pids);
  return {
    result,
    cpuUs: cpu1.allUs - cpu0.allUs,
    mainCpuUs: cpu1.mainUs - cpu0.mainUs,
    publishCpuUs: cpuRun === undefined ? 0 : cpu1.allUs - cpuRun.allUs,
    loopMs: loopEnd.wallMs - mark0.wallMs,
    foreignPct: foreignPct(mark0, mark1),
    windowMs: mark1.wallMs - mark0.wallMs,
  };
}
