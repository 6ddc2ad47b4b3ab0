import type { StreamResponse, TaskState } from '@a2a-js/sdk';
import { isReminderUpdate, isTerminalState, messageText } from '@a2a-reminders/core';

/** A task's progress as it appears in a stream item: its state and the agent's status text. */
export interface Progress {
  readonly state: TaskState | undefined;
  readonly text: string;
}

/** The progress in a stream item, if it carries any: a task snapshot or a status update with a message. */
export function progressOf(item: StreamResponse): Progress | undefined {
  const payload = item.payload;
  if (payload?.$case === 'task') {
    return { state: payload.value.status?.state, text: messageText(payload.value.status?.message) };
  }
  if (payload?.$case === 'statusUpdate') {
    // R50: a reminder update repeats the last status, message included; it is not progress.
    if (isReminderUpdate(item)) return undefined;
    const status = payload.value.status;
    const text = messageText(status?.message);
    if (text.length === 0 && !isTerminalState(status?.state)) return undefined;
    return { state: status?.state, text };
  }
  return undefined;
}

/** The id of the task a stream item is about; undefined for a bare message. */
export function taskIdOf(item: StreamResponse): string | undefined {
  const p = item.payload;
  if (p?.$case === 'task') return p.value.id;
  if (p?.$case === 'statusUpdate' || p?.$case === 'artifactUpdate') return p.value.taskId;
  return undefined;
}

/** The task state a stream item shows, if it shows one. */
export function taskStateOf(item: StreamResponse): TaskState | undefined {
  const p = item.payload;
  if (p?.$case === 'task') return p.value.status?.state;
  if (p?.$case === 'statusUpdate') return p.value.status?.state;
  return undefined;
}
