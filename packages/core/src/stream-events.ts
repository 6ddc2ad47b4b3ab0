import type { TaskReminderEvent, TaskReminderEventBatch } from '@a2a-reminders/proto';
import { TaskReminderEventBatchSchema } from '@a2a-reminders/proto';
import type { JsonValue } from '@bufbuild/protobuf';
import { fromJson } from '@bufbuild/protobuf';
import { TASK_REMINDERS_EXTENSION_URI } from './extension-uri.js';

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The status-update event inside a client stream item, an executor event, or the event itself. */
function statusUpdateOf(item: unknown): Record<string, unknown> | undefined {
  const obj = asRecord(item);
  if (obj === undefined) return undefined;
  // StreamResponse (SDK client, every binding): { payload: { $case, value } }.
  const payload = asRecord(obj.payload);
  if (payload !== undefined) {
    return payload.$case === 'statusUpdate' ? asRecord(payload.value) : undefined;
  }
  // AgentExecutionEvent (server side): { kind, data }.
  if (typeof obj.kind === 'string') {
    return obj.kind === 'statusUpdate' ? asRecord(obj.data) : undefined;
  }
  // ProtoJSON StreamResponse: { statusUpdate: {...} }.
  const wrapped = asRecord(obj.statusUpdate);
  if (wrapped !== undefined) return wrapped;
  // A TaskStatusUpdateEvent.
  return 'taskId' in obj && 'metadata' in obj ? obj : undefined;
}

/**
 * The reminder event batch carried by a stream item (R30), or undefined.
 * Unknown fields and event kinds are ignored (R33).
 */
export function reminderBatchOf(item: unknown): TaskReminderEventBatch | undefined {
  const update = statusUpdateOf(item);
  const metadata = asRecord(update?.metadata);
  const raw = metadata?.[TASK_REMINDERS_EXTENSION_URI];
  if (asRecord(raw) === undefined) return undefined;
  try {
    return fromJson(TaskReminderEventBatchSchema, raw as JsonValue, { ignoreUnknownFields: true });
  } catch {
    return undefined;
  }
}

/**
 * Picks the reminder events out of anything a stream yields: the SDK
 * client's StreamResponse items (SubscribeToTask, SendStreamingMessage) on
 * any binding, server-side AgentExecutionEvents, or bare status updates.
 * Events of kinds this version does not know are skipped (R33).
 */
export function reminderEventsOf(item: unknown): TaskReminderEvent[] {
  const batch = reminderBatchOf(item);
  if (batch === undefined) return [];
  return batch.events.filter((e) => e.event.case !== undefined);
}
