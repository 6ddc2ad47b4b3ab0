/** Unique reminder ids for one load process (`<arm>-<pid>-<n>`) and the dedupe key they use. */
export class InjectIds {
  private n = 0;
  constructor(
    private readonly prefix: string,
    readonly dedupeKey: string,
  ) {}
  next(): string {
    this.n += 1;
    return `${this.prefix}-${process.pid}-${this.n}`;
  }
}

/**
 * Every inject uses the same dedupe key, so each displaces its task's previous
 * reminder: one live reminder per task, the quota is never hit.
 */
export const BENCH_DEDUPE_KEY = 'bench-budget';

export const BENCH_BODY = 'Budget 80% used; wrap up the current step and report.';

/** The InjectTaskReminderRequest as ProtoJSON (JSON-RPC params; REST takes it minus taskId). */
export function injectReminderJson(taskId: string, reminderId: string, dedupeKey: string) {
  return {
    taskId,
    reminder: {
      id: reminderId,
      body: BENCH_BODY,
      dedupeKey,
      ttlTurns: 3,
      source: 'bench',
    },
  };
}
