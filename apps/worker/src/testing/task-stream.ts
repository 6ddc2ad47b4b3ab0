import type { StreamResponse, TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { delegationRequest } from '@a2a-reminders/client';
import { reminderEventsOf } from '@a2a-reminders/core';
import type { TaskReminderEvent } from '@a2a-reminders/proto';
import { a2aCallOptions } from './replica-set.js';

/** A task delegated with a streaming SendMessage, and everything its stream carried. */
export interface TaskStream {
  readonly taskId: string;
  /** Every stream item so far, the first (the task) included. */
  readonly items: StreamResponse[];
  /** Every reminder event so far, in the order the stream carried them. */
  readonly events: TaskReminderEvent[];
  /**
   * Settles when the stream ends: with the last task state it showed, or
   * with the error that cut it (a killed replica).
   */
  readonly closed: Promise<{ readonly state: TaskState | undefined; readonly error?: unknown }>;
  /** Resolves at the first item (past or future) matching `predicate`; rejects if the stream ends first. */
  until(predicate: (item: StreamResponse) => boolean, what: string): Promise<void>;
}

/**
 * Delegates a coding task with `SendStreamingMessage` and keeps reading its
 * stream in the background. Resolves once the first item named the task.
 * Callers keep `text` (and reminder bodies) clear of the words the scripted
 * model wraps up on (budget, cost, spent), so the task runs until it is
 * cancelled or its replica dies.
 */
export async function delegateStreaming(client: Client, text: string): Promise<TaskStream> {
  const stream = client.sendMessageStream(delegationRequest(text), a2aCallOptions());
  const items: StreamResponse[] = [];
  const events: TaskReminderEvent[] = [];
  const waiters: Array<{ predicate: (item: StreamResponse) => boolean; resolve: () => void }> = [];
  let state: TaskState | undefined;

  const first = await stream.next();
  if (first.done === true) throw new Error('the stream ended before it named a task');
  const taskId = taskIdOf(first.value);
  if (taskId === undefined)
    throw new Error(`the stream opened with ${JSON.stringify(first.value)}`);
  const take = (item: StreamResponse) => {
    items.push(item);
    events.push(...reminderEventsOf(item));
    state = stateOf(item) ?? state;
    for (const w of [...waiters]) {
      if (w.predicate(item)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  };
  take(first.value);

  const closed = (async () => {
    try {
      for await (const item of stream) take(item);
      return { state };
    } catch (error) {
      return { state, error };
    }
  })();

  return {
    taskId,
    items,
    events,
    closed,
    until(predicate, what) {
      if (items.some(predicate)) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        waiters.push({ predicate, resolve });
        void closed.then(() => reject(new Error(`the stream ended before ${what}`)));
      });
    },
  };
}

/** Whether a stream item is the task's WORKING update after turn `turn` (`turn n/…`). */
export function isTurnUpdate(item: StreamResponse, turn: number): boolean {
  const payload = item.payload;
  if (payload?.$case !== 'statusUpdate') return false;
  const part = payload.value.status?.message?.parts[0]?.content;
  return part?.$case === 'text' && part.value.startsWith(`turn ${turn}/`);
}

function taskIdOf(item: StreamResponse): string | undefined {
  const payload = item.payload;
  if (payload?.$case === 'task') return payload.value.id;
  if (payload?.$case === 'statusUpdate') return payload.value.taskId;
  return undefined;
}

function stateOf(item: StreamResponse): TaskState | undefined {
  const payload = item.payload;
  if (payload?.$case === 'task') return payload.value.status?.state;
  if (payload?.$case === 'statusUpdate') return payload.value.status?.state;
  return undefined;
}
