import type { TaskStore } from '@a2a-js/sdk/server';
import type { ReminderService } from '@a2a-reminders/core';
import { TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import type { Request, Response } from 'express';
import type { FollowUpPool } from './follow-up-pool.js';
import { endPlainReminders } from './plain-reminder-turns.js';
import { benchCaller } from './seed-tasks.js';
import type { WorkingExecutor } from './working-executor.js';

export interface HeapStats {
  readonly heapUsed: number;
  readonly rss: number;
  readonly gc: boolean;
}

/**
 * `GET /admin/stats[?gc=1]`: heap and RSS, after a full GC when asked and the
 * process runs with --expose-gc. Loopback-only bench server, never production.
 */
export function adminStats(req: Request, res: Response): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  const wantGc = req.query.gc === '1' && gc !== undefined;
  if (wantGc) {
    gc();
    gc();
  }
  const mem = process.memoryUsage();
  const stats: HeapStats = { heapUsed: mem.heapUsed, rss: mem.rss, gc: wantGc };
  res.json(stats);
}

/** `GET /admin/tasks`: the seeded task ids, so the load process can target them. */
export function adminTasks(ids: readonly string[]) {
  return (_req: Request, res: Response): void => {
    res.json({ ids });
  };
}

/**
 * `POST /admin/end-plain-reminders`: turn boundaries on every seeded task
 * (plain-reminder-turns.ts), run by the orchestrator around each plain inject slice.
 */
export function adminEndPlainReminders(
  ids: readonly string[],
  executor: WorkingExecutor,
  reminders: ReminderService,
) {
  return async (_req: Request, res: Response): Promise<void> => {
    res.json(await endPlainReminders(ids, executor, reminders));
  };
}

/**
 * Every displacement batch waiting for R57's delay goes out now, and the
 * promise settles once the A2A server has stored what that published. On the
 * bench's in-memory stores that work is promise callbacks only, all run
 * before the next turn of the event loop, however slow the machine.
 */
export async function publishDelayedAndStored(reminders: ReminderService): Promise<void> {
  reminders.publishDelayedEvents();
  for (let turn = 0; turn < 2; turn += 1) await new Promise((resolve) => setImmediate(resolve));
}

/** `POST /admin/publish-delayed`: {@link publishDelayedAndStored} (settle-delayed.ts). */
export function adminPublishDelayed(reminders: ReminderService) {
  return async (_req: Request, res: Response): Promise<void> => {
    await publishDelayedAndStored(reminders);
    res.json({});
  };
}

/**
 * The SendMessage workaround's pool (follow-up-pool.ts): `GET /admin/followup-tasks`
 * lists it, `POST /admin/followup-tasks` seeds a fresh one (and cuts the previous
 * pool's histories back, unless it was retired), `DELETE /admin/followup-tasks`
 * retires the current one (its histories cut back, no pool left), and
 * `GET /admin/followup-history` tells how long its tasks' histories have grown.
 */
export function adminFollowUps(pool: FollowUpPool) {
  return {
    list: (_req: Request, res: Response): void => {
      res.json({ tasks: pool.tasks });
    },
    renew: async (_req: Request, res: Response): Promise<void> => {
      await pool.renew();
      res.json({ tasks: pool.tasks.length });
    },
    retire: async (_req: Request, res: Response): Promise<void> => {
      await pool.retire();
      res.json({ tasks: pool.tasks.length });
    },
    history: async (_req: Request, res: Response): Promise<void> => {
      res.json(await pool.history());
    },
  };
}

/**
 * `POST /admin/drop-stored-batches` with `{ "ids": [...] }`: removes any
 * reminder batch left in these tasks' metadata in the store under R66's
 * wrapper (R30), so the memory phase weighs what such batches would hold on
 * to after the tasks ended, and counts them (none, by R66). Diagnostic only;
 * the tasks are the memory phase's own.
 */
export function adminDropStoredBatches(taskStore: TaskStore) {
  return async (req: Request, res: Response): Promise<void> => {
    const ids = (req.body as { ids?: unknown }).ids;
    if (!Array.isArray(ids)) {
      res.status(400).json({ error: 'ids must be an array of task ids' });
      return;
    }
    const context = benchCaller();
    let dropped = 0;
    for (const id of ids) {
      const task = typeof id === 'string' ? await taskStore.load(id, context) : undefined;
      const metadata = task?.metadata;
      if (task === undefined || metadata?.[TASK_REMINDERS_EXTENSION_URI] === undefined) continue;
      const { [TASK_REMINDERS_EXTENSION_URI]: _batch, ...rest } = metadata;
      await taskStore.save({ ...task, metadata: rest }, context);
      dropped += 1;
    }
    res.json({ dropped });
  };
}
