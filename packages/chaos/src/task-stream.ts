import type { StreamResponse, TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { reminderRequestOptions } from '@a2a-reminders/client';
import { reminderEventsOf } from '@a2a-reminders/core';
import type { TaskReminderEvent } from '@a2a-reminders/proto';

/** A SubscribeToTask stream read in the background: every reminder event, in arrival order. */
export interface TaskStream {
  readonly events: TaskReminderEvent[];
  /** Whether the first item (the task's snapshot) arrived: from then on no event is missed. */
  opened(): boolean;
  /** Whether the stream ended (the execution finished its event bus, or it was cut). */
  closed(): boolean;
  /** The last task state the stream showed. */
  state(): TaskState | undefined;
  /** Why the stream ended with an error, if it did. */
  error(): unknown;
  /** Resolves once the first item came; rejects if the stream ends or errs first. */
  readonly ready: Promise<void>;
  /** Resolves once the stream ended, however. */
  readonly ended: Promise<void>;
  /** Stops reading (aborts the call). */
  abort(): void;
}

/**
 * Opens SubscribeToTask on the replica running the task (R52: only there do
 * reminder events arrive) and keeps reading it.
 */
export function subscribe(client: Client, taskId: string): TaskStream {
  const controller = new AbortController();
  const events: TaskReminderEvent[] = [];
  let opened = false;
  let closed = false;
  let state: TaskState | undefined;
  let failure: unknown;
  let markReady: () => void = () => {};
  let failReady: (error: unknown) => void = () => {};
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    failReady = reject;
  });
  // A caller that never awaits `ready` (the stream failed before it cared) must not see an
  // unhandled rejection.
  ready.catch(() => {});
  const take = (item: StreamResponse) => {
    events.push(...reminderEventsOf(item));
    state = stateOf(item) ?? state;
    if (!opened) {
      opened = true;
      markReady();
    }
  };
  const ended = (async () => {
    try {
      for await (const item of client.resubscribeTask(
        { tenant: '', id: taskId },
        reminderRequestOptions({}, controller.signal),
      )) {
        take(item);
      }
    } catch (error) {
      failure = error;
    } finally {
      closed = true;
      failReady(failure ?? new Error('the stream ended before its first item'));
    }
  })();
  return {
    events,
    opened: () => opened,
    closed: () => closed,
    state: () => state,
    error: () => failure,
    ready,
    ended,
    abort: () => controller.abort(),
  };
}

function stateOf(item: StreamResponse): TaskState | undefined {
  const payload = item.payload;
  if (payload?.$case === 'task') return payload.value.status?.state;
  if (payload?.$case === 'statusUpdate') return payload.value.status?.state;
  return undefined;
}
