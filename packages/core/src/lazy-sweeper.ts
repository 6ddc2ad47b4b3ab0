import type { ReminderSteps } from './reminder-steps.js';

/**
 * R35: purges ended tasks past retention lazily, from the rpcs, at most once
 * per min(retention, 1 min); no timers, so an idle service does no work.
 */
export class LazySweeper {
  private lastSweepMs = Number.NEGATIVE_INFINITY;

  constructor(private readonly steps: ReminderSteps) {}

  /**
   * Purging is housekeeping: a failed sweep (say, a busy database) is logged
   * and retried later, never answered to the caller who happened to trigger it.
   * Undefined when no sweep is due, as on almost every call: no async frame
   * per rpc for a check that finds nothing to do.
   */
  maybeSweep(): Promise<void> | undefined {
    const nowMs = this.steps.nowMs();
    if (nowMs - this.lastSweepMs < Math.min(this.steps.limits.retentionMs, 60_000))
      return undefined;
    this.lastSweepMs = nowMs;
    return this.steps.store.sweep(nowMs).then(
      () => undefined,
      (error: unknown) => {
        console.error('task reminders: sweeping ended tasks failed', error);
      },
    );
  }
}
