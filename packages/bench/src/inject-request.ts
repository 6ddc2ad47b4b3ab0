import type { InjectTaskReminderRequest } from '@a2a-reminders/proto';
import { InjectTaskReminderRequestSchema, TaskReminderSchema } from '@a2a-reminders/proto';

/** Unique reminder ids for one load process (`<arm>-<pid>-<n>`). */
export class InjectIds {
  private n = 0;
  constructor(private readonly prefix: string) {}
  next(): string {
    this.n += 1;
    return `${this.prefix}-${process.pid}-${this.n}`;
  }
}

/**
 * Every displacing inject uses the same dedupe key, so each displaces its
 * task's previous reminder: one live reminder per task, the quota is never hit.
 */
export const BENCH_DEDUPE_KEY = 'bench-budget';

export const BENCH_BODY = 'Budget 80% used; wrap up the current step and report.';

/**
 * `displacing`: the shared dedupe key, ttl 3 (the proposal's monitor that
 * keeps firing). `plain`: no dedupe key, so nothing is displaced and no event
 * is published; ttl 1, so the bench server's turn boundaries between slices
 * (POST /admin/end-plain-reminders) surface and then expire them and the
 * live count stays under the quota (R17, R20, R22).
 */
export type InjectStyle = 'displacing' | 'plain';

/** The InjectTaskReminderRequest as ProtoJSON (JSON-RPC params; REST takes it minus taskId). */
export function injectReminderJson(taskId: string, reminderId: string, style: InjectStyle) {
  const common = { id: reminderId, body: BENCH_BODY };
  return {
    taskId,
    reminder:
      style === 'displacing'
        ? { ...common, dedupeKey: BENCH_DEDUPE_KEY, ttlTurns: 3, source: 'bench' }
        : { ...common, ttlTurns: 1, source: 'bench' },
  };
}

/**
 * {@link injectReminderJson} as the message the gRPC arms send, a literal: what
 * `create()` builds from it (`inject-request.test.ts`), without `create()`'s
 * reflection, some 4 µs of the load process's CPU per call on the cores the
 * server shares, as the GetTask arm hands the SDK's codec a literal too.
 */
export function injectReminderMessage(
  taskId: string,
  reminderId: string,
  style: InjectStyle,
): InjectTaskReminderRequest {
  const { reminder } = injectReminderJson(taskId, reminderId, style);
  return {
    $typeName: InjectTaskReminderRequestSchema.typeName,
    tenant: '',
    taskId,
    // The defaults create() gives the fields the JSON leaves out.
    reminder: { $typeName: TaskReminderSchema.typeName, dedupeKey: '', roleHint: '', ...reminder },
  };
}
