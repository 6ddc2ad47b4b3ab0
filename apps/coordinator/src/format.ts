import type { Message, StreamResponse, Task } from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import { isReminderUpdate } from '@a2a-reminders/core';
import type { TaskReminderEvent, TaskReminderRecord } from '@a2a-reminders/proto';
import { ReminderState } from '@a2a-reminders/proto';

/** `REMINDER_STATE_EXPIRED` → `EXPIRED`. */
export function reminderStateName(state: ReminderState): string {
  return ReminderState[state] ?? `UNKNOWN(${state})`;
}

/** `TASK_STATE_WORKING` → `WORKING`. */
export function taskStateName(state: TaskState | undefined): string {
  if (state === undefined) return 'UNKNOWN';
  return (TaskState[state] ?? `UNKNOWN(${state})`).replace(/^TASK_STATE_/, '');
}

export function isTerminal(state: TaskState | undefined): boolean {
  return (
    state === TaskState.TASK_STATE_COMPLETED ||
    state === TaskState.TASK_STATE_FAILED ||
    state === TaskState.TASK_STATE_CANCELED ||
    state === TaskState.TASK_STATE_REJECTED
  );
}

/** The text parts of an A2A message, joined. */
export function textOf(message: Message | undefined): string {
  if (message === undefined) return '';
  return message.parts
    .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
    .filter((t) => t.length > 0)
    .join('\n');
}

/** One reminder event as a timeline entry: a short tag and its text. */
export function describeReminderEvent(event: TaskReminderEvent): { tag: string; text: string } {
  const id = event.reminderId;
  switch (event.event.case) {
    case 'emitted': {
      const { turn, turnsRemaining } = event.event.value;
      const more = turnsRemaining === 1 ? '1 more turn' : `${turnsRemaining} more turns`;
      return { tag: 'reached', text: `${id} reached the worker's model at turn ${turn} (${more})` };
    }
    case 'displaced':
      return { tag: 'displaced', text: `${id} displaced by ${event.event.value.displacedBy}` };
    case 'expired': {
      const { lastTurn, turnsSurfaced, taskEnded } = event.event.value;
      const turns = turnsSurfaced === 1 ? '1 turn' : `${turnsSurfaced} turns`;
      const why = taskEnded ? 'the task ended' : 'its TTL was used up';
      return {
        tag: 'expired',
        text: `${id} expired after turn ${lastTurn}: surfaced on ${turns}, ${why}`,
      };
    }
    case 'cancelled':
      return {
        tag: 'cancelled',
        text: `${id} cancelled after ${event.event.value.turnsSurfaced} turn(s)`,
      };
    case 'dropped':
      return {
        tag: 'dropped',
        text: `${id} dropped: the task ended (${event.event.value.taskState}) before any turn`,
      };
    default:
      return { tag: 'event', text: `${id}: an event this coordinator does not know` };
  }
}

/** One reminder record as a line of `list` or of the demo summary. */
export function describeRecord(record: TaskReminderRecord): string {
  const r = record.reminder;
  const parts = [`${(r?.id ?? '?').padEnd(20)} ${reminderStateName(record.state).padEnd(10)}`];
  if (record.firstTurn !== undefined) parts.push(`first turn ${record.firstTurn}`);
  if (record.displacedBy) parts.push(`displaced by ${record.displacedBy}`);
  if (record.turnsRemaining > 0) parts.push(`${record.turnsRemaining} turn(s) left`);
  if (r?.dedupeKey) parts.push(`dedupe ${r.dedupeKey}`);
  if (r?.ttlTurns !== undefined) parts.push(`ttl ${r.ttlTurns}`);
  return parts.join('  ');
}

/** A task's progress as it appears in a stream item: its state and the agent's status text. */
export interface Progress {
  readonly state: TaskState | undefined;
  readonly text: string;
}

/** The progress in a stream item, if it carries any: a task snapshot or a status update with a message. */
export function progressOf(item: StreamResponse): Progress | undefined {
  const payload = item.payload;
  if (payload?.$case === 'task') {
    return { state: payload.value.status?.state, text: textOf(payload.value.status?.message) };
  }
  if (payload?.$case === 'statusUpdate') {
    // R50: a reminder update repeats the last status, message included; it is not progress.
    if (isReminderUpdate(item)) return undefined;
    const status = payload.value.status;
    const text = textOf(status?.message);
    if (text.length === 0 && !isTerminal(status?.state)) return undefined;
    return { state: status?.state, text };
  }
  return undefined;
}

export function taskOf(item: StreamResponse): Task | undefined {
  return item.payload?.$case === 'task' ? item.payload.value : undefined;
}
