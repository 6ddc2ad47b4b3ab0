import type { ReminderService } from '@a2a-reminders/core';
import { TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import { InjectTaskReminderRequestSchema } from '@a2a-reminders/proto';
import { create } from '@bufbuild/protobuf';
import { BENCH_DEDUPE_KEY, injectReminderJson } from './inject-request.js';
import { benchCaller } from './seed-tasks.js';
import type { WorkingExecutor } from './working-executor.js';

/** What one sweep over the seeded tasks found (POST /admin/end-plain-reminders). */
export interface PlainReminderSweep {
  readonly tasks: number;
  /** The most live reminders one task held before the sweep (R17 quota: 64 by default). */
  readonly maxLive: number;
  /** Reminders without the bench dedupe key still live after the sweep: 0 expected. */
  readonly plainLeft: number;
}

let restored = 0;

/**
 * Ends the plain arms' reminders between slices, outside the measured window:
 * on every seeded task two turn boundaries as the worker's runtime marks them
 * (R19), the first surfaces the ttl-1 plain reminders, the second expires them
 * (R20, R22). Those boundaries also surface the task's displacing reminder,
 * so the task is put back as the displacing arms leave it: two displacing
 * injects, so that its live reminder is PENDING again. The stored task holds
 * no batch either way (R66), so GetTask reads the same task after a plain arm
 * as after a displacing one.
 */
export async function endPlainReminders(
  taskIds: readonly string[],
  executor: WorkingExecutor,
  reminders: ReminderService,
): Promise<PlainReminderSweep> {
  const caller = benchCaller([TASK_REMINDERS_EXTENSION_URI]);
  let maxLive = 0;
  let plainLeft = 0;
  for (const taskId of taskIds) {
    const run = executor.running(taskId);
    if (run === undefined) throw new Error(`seeded task ${taskId} is not running`);
    const surfaced = await reminders.beginTurn(run.requestContext, run.bus);
    maxLive = Math.max(maxLive, surfaced.reminders.length);
    const after = await reminders.beginTurn(run.requestContext, run.bus);
    plainLeft += after.reminders.filter((r) => r.dedupeKey !== BENCH_DEDUPE_KEY).length;
    for (let i = 0; i < 2; i += 1) {
      restored += 1;
      const json = injectReminderJson(
        taskId,
        `bench-restore-${process.pid}-${restored}`,
        'displacing',
      );
      await reminders.injectTaskReminder(create(InjectTaskReminderRequestSchema, json), caller);
    }
  }
  return { tasks: taskIds.length, maxLive, plainLeft };
}
