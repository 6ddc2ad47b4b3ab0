import type { ArmKind } from './arms.js';
import type { PlainReminderSweep } from './plain-reminder-turns.js';
import type { ServerProcess } from './server-process.js';
import { settleDelayedEvents } from './settle-delayed.js';
import type { SliceResult } from './slice.js';

/** Where a slice's steps act: the bench server through its admin routes, or the stack in process. */
export interface SliceHost {
  /** Turn boundaries that end the plain arm's reminders (plain-reminder-turns.ts). */
  endPlainReminders(): Promise<PlainReminderSweep>;
  /** R57: every waiting displacement event published and stored (settle-delayed.ts). */
  publishDelayed(): Promise<void>;
  fullGc(): Promise<void>;
}

/** The bench server as a {@link SliceHost}. */
export function serverSliceHost(server: ServerProcess): SliceHost {
  return {
    endPlainReminders: () => server.admin<PlainReminderSweep>('POST', '/admin/end-plain-reminders'),
    publishDelayed: () => settleDelayedEvents((path) => server.admin('POST', path)),
    fullGc: async () => {
      await server.stats(true);
    },
  };
}

export interface SliceSteps {
  /** The arm's warm-up, discarded. */
  readonly warmup: () => Promise<unknown>;
  /** Force a full GC before the window (the benchmark always does). */
  readonly fullGc: boolean;
}

/** The window's own result, with the plain arm's sweeps after the warm-up and after the window. */
export interface AroundSlice<T> {
  readonly window: T;
  readonly warmupSweep: PlainReminderSweep | undefined;
  readonly sweep: PlainReminderSweep | undefined;
}

/**
 * The benchmark's steps around one measured slice (README, What it measures),
 * shared by run-bench.ts, interleaved-slice.ts, gc-arms.ts and service-arms.ts
 * so all measure the same slice of the arms of `kinds`: the warm-up; when one
 * is a plain arm, its reminders ended by turn boundaries on every seeded task; the warm-up's waiting displacement events
 * published (R57); a full GC; `window`; the plain reminders ended again.
 * `window` runs the slice and publishes its own waiting events before it
 * reads its figures.
 */
export async function aroundSlice<T>(
  host: SliceHost,
  kinds: readonly ArmKind[],
  steps: SliceSteps,
  window: () => Promise<T>,
): Promise<AroundSlice<T>> {
  const plain = kinds.includes('inject-plain');
  await steps.warmup();
  const warmupSweep = plain ? await host.endPlainReminders() : undefined;
  await host.publishDelayed();
  if (steps.fullGc) await host.fullGc();
  const result = await window();
  const sweep = plain ? await host.endPlainReminders() : undefined;
  return { window: result, warmupSweep, sweep };
}

/** A plain arm's figures of slice.ts from the sweeps after its warm-up and its slice. */
export function plainSweepFigures(
  around: Pick<AroundSlice<unknown>, 'warmupSweep' | 'sweep'>,
): Pick<SliceResult, 'maxLiveReminders' | 'plainLeft'> {
  const { warmupSweep, sweep } = around;
  if (sweep === undefined) return {};
  return {
    maxLiveReminders: Math.max(sweep.maxLive, warmupSweep?.maxLive ?? 0),
    plainLeft: sweep.plainLeft + (warmupSweep?.plainLeft ?? 0),
  };
}
