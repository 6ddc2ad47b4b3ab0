import type { ArmKind } from './arms.js';
import type { LoadProcess } from './load-process.js';
import type { PlainReminderSweep } from './plain-reminder-turns.js';
import type { ServerProcess } from './server-process.js';
import { settleDelayedEvents } from './settle-delayed.js';

export interface SliceSteps {
  readonly warmupMs: number;
  /** `--pace` (0: closed loop). */
  readonly pace: number;
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
 * shared by run-bench.ts and gc-arms.ts so both measure the same slice: the
 * warm-up; for a plain arm, its reminders ended by turn boundaries on every
 * seeded task (plain-reminder-turns.ts); the warm-up's waiting displacement
 * events published (R57); a full GC; `window`; the plain reminders ended
 * again. `window` runs the slice and publishes its own waiting events
 * (settleDelayedEvents) before it reads its figures.
 */
export async function aroundSlice<T>(
  server: ServerProcess,
  load: LoadProcess,
  kind: ArmKind,
  steps: SliceSteps,
  window: () => Promise<T>,
): Promise<AroundSlice<T>> {
  if (steps.warmupMs > 0) await load.run(steps.warmupMs, steps.pace);
  const warmupSweep = kind === 'inject-plain' ? await endPlainReminders(server) : undefined;
  await settleDelayedEvents((path) => server.admin('POST', path));
  if (steps.fullGc) await server.stats(true);
  const result = await window();
  const sweep = kind === 'inject-plain' ? await endPlainReminders(server) : undefined;
  return { window: result, warmupSweep, sweep };
}

function endPlainReminders(server: ServerProcess): Promise<PlainReminderSweep> {
  return server.admin<PlainReminderSweep>('POST', '/admin/end-plain-reminders');
}
