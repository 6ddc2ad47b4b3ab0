import { ARMS, type ArmName, interleavedOrder } from './arms.js';
import type { LoopResult } from './closed-loop.js';
import { LoadProcess } from './load-process.js';
import { processThreadsCpu } from './proc-cpu.js';
import type { ServerProcess } from './server-process.js';
import { serverCpuFigures, serverWindow } from './server-window.js';
import { settleDelayedEvents } from './settle-delayed.js';
import type { SliceResult } from './slice.js';
import { aroundSlice, plainSweepFigures, serverSliceHost } from './slice-steps.js';

export interface InterleavedSliceOptions {
  readonly warmupMs: number;
  /** Each arm's measured time, split into `parts`. */
  readonly sliceMs: number;
  readonly parts: number;
  readonly pace: number;
  /** The contention gate: a part during which other processes used more is re-run. */
  readonly quietPct: number;
  readonly maxReruns: number;
}

interface Totals {
  cpuUs: number;
  /** The displacing inject's: the publish of its waiting events after the parts. */
  publishCpuUs?: number;
  mainCpuUs: number;
  loopMs: number;
  foreignUs: number;
  windowMs: number;
  partsRerun: number;
}

/**
 * One slice of each arm of an interleaved group (README, What it measures):
 * every arm warms up, one forced full GC, then `parts` measured parts per arm
 * in {@link interleavedOrder}, each a window of its own (server-window.ts)
 * and each right after the one before, so a slowdown of the VM longer than a
 * part falls on every arm; then the displacement events that waited are
 * published, charged to the displacing inject. A part during which other
 * processes used more than `quietPct` % of a core is dropped and re-run,
 * after a wait for quiet, at most `maxReruns` times (the last run kept). An arm's figures are its parts summed, its
 * latencies percentiles over all of its parts. A plain inject arm's
 * reminders are ended after the warm-up and after the slice (slice-steps.ts).
 */
export async function interleavedSlice(
  server: ServerProcess,
  group: readonly ArmName[],
  round: number,
  o: InterleavedSliceOptions,
): Promise<SliceResult[]> {
  const loads: LoadProcess[] = [];
  try {
    for (const arm of group) {
      loads.push(await LoadProcess.start(arm, server.httpPort, server.grpcPort));
    }
    const pids = [server.pid, ...loads.map((l) => l.pid)];
    const totals: Totals[] = group.map(() => ({
      cpuUs: 0,
      mainCpuUs: 0,
      loopMs: 0,
      foreignUs: 0,
      windowMs: 0,
      partsRerun: 0,
    }));
    const around = await aroundSlice(
      serverSliceHost(server),
      group.map((arm) => ARMS[arm].kind),
      {
        warmup: async () => {
          if (o.warmupMs > 0) for (const load of loads) await load.run(o.warmupMs, o.pace);
        },
        fullGc: true,
      },
      async () => {
        for (const [n, i] of interleavedOrder(o.parts, round, group.length).entries()) {
          const load = loads[i] as LoadProcess;
          const t = totals[i] as Totals;
          for (let attempt = 0; ; attempt += 1) {
            const w = await serverWindow(
              server,
              pids,
              o.quietPct,
              () => load.runPart(o.sliceMs / o.parts, o.pace),
              { waitQuiet: n === 0 || attempt > 0, publish: false },
            );
            if (w.foreignPct > o.quietPct && attempt < o.maxReruns) {
              await load.dropPart();
              t.partsRerun += 1;
              continue;
            }
            t.cpuUs += w.cpuUs;
            t.mainCpuUs += w.mainCpuUs;
            t.loopMs += w.loopMs;
            t.foreignUs += w.foreignPct * w.windowMs;
            t.windowMs += w.windowMs;
            break;
          }
        }
        // R57: the displacing inject's events waited through every part (the
        // bench server's delay outlasts the group); published now, once per
        // task it displaced on, as after a slice of its own, and charged to it.
        const cpu0 = await processThreadsCpu(server.pid);
        await settleDelayedEvents((path) => server.admin('POST', path));
        const cpu1 = await processThreadsCpu(server.pid);
        const displacing = group.findIndex((arm) => ARMS[arm].kind === 'inject');
        if (displacing >= 0) {
          const t = totals[displacing] as Totals;
          const publishUs = cpu1.allUs - cpu0.allUs;
          t.cpuUs += publishUs;
          t.mainCpuUs += cpu1.mainUs - cpu0.mainUs;
          t.publishCpuUs = publishUs;
        }
        const results: LoopResult[] = [];
        for (const load of loads) results.push(await load.total());
        return results;
      },
    );
    return group.map((arm, i): SliceResult => {
      const result = around.window[i] as LoopResult;
      const t = totals[i] as Totals;
      return {
        ...result,
        arm,
        round,
        ...serverCpuFigures(result.requests, t.cpuUs, t.mainCpuUs, t.loopMs, t.publishCpuUs),
        foreignCpuPct: t.foreignUs / t.windowMs,
        attempts: 1,
        interleaved: {
          with: group.filter((other) => other !== arm),
          parts: o.parts,
          partsRerun: t.partsRerun,
        },
        ...(ARMS[arm].kind === 'inject-plain' ? plainSweepFigures(around) : {}),
      };
    });
  } finally {
    for (const load of loads) load.stop();
  }
}
