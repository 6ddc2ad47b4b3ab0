import type { TaskState, TaskStatus } from '@a2a-js/sdk';
import { messageText, taskStateName } from '@a2a-reminders/core';
import type {
  InjectTaskReminderResponse,
  TaskReminderEvent,
  TaskReminderRecord,
} from '@a2a-reminders/proto';
import { ReminderState } from '@a2a-reminders/proto';
import type { InjectFields } from './cli-args.js';

/** `REMINDER_STATE_EXPIRED` → `EXPIRED`. */
export function reminderStateName(state: ReminderState): string {
  return ReminderState[state] ?? `UNKNOWN(${state})`;
}

/**
 * `WORKING`: core's ProtoJSON name of a task state (`TASK_STATE_WORKING`, as
 * the wire and InjectTaskReminder's `taskState` carry it) without its prefix,
 * as the CLI shows it next to the reminder states.
 */
export function taskStateLabel(state: TaskState | string | undefined): string {
  const name = typeof state === 'string' ? state : taskStateName(state);
  return name.replace(/^TASK_STATE_/, '');
}

/** A task's status as a line shows it: `COMPLETED: Done in 5 turns.`, or the state alone. */
export function describeStatus(status: TaskStatus | undefined): string {
  const text = messageText(status?.message);
  return `${taskStateLabel(status?.state)}${text ? `: ${text}` : ''}`;
}

/**
 * An accepted InjectTaskReminder as a timeline entry:
 * `cost-75 accepted PENDING (dedupe cost-budget, ttl 1, roleHint system); displaces cost-50`.
 */
export function describeInjected(
  reminder: InjectFields,
  response: InjectTaskReminderResponse,
): string {
  const details = [
    reminder.dedupeKey ? `dedupe ${reminder.dedupeKey}` : undefined,
    `ttl ${response.record?.reminder?.ttlTurns ?? '?'}`,
    reminder.roleHint ? `roleHint ${reminder.roleHint}` : 'no roleHint',
  ].filter((d) => d !== undefined);
  const state = reminderStateName(response.record?.state ?? ReminderState.UNSPECIFIED);
  const displaced = response.displacedReminderIds;
  return (
    `${reminder.id} accepted ${state} (${details.join(', ')})` +
    (displaced.length > 0 ? `; displaces ${displaced.join(', ')}` : '')
  );
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
        text: `${id} dropped: the task ended (${taskStateLabel(event.event.value.taskState)}) before any turn`,
      };
    case 'forward': {
      const copy = event.event.value;
      const fate = copy.refusal ? `refused there (${copy.refusal})` : reminderStateName(copy.state);
      return { tag: 'forward', text: `${id}'s copy in task ${copy.taskId}: ${fate}` };
    }
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
  // Spec §15: where a forwarded copy came from, and where the reminder went.
  const hops = r?.provenance?.hops ?? [];
  if (hops.length > 0) {
    const path = hops.map((h) => `task ${h.taskId}/${h.reminderId} (${h.source || 'no source'})`);
    parts.push(`forwarded from ${path.join(' → ')}`);
  }
  for (const f of record.forwards) {
    const fate = f.refusal ? `refused (${f.refusal})` : reminderStateName(f.state);
    parts.push(`copy in task ${f.taskId}: ${fate}`);
  }
  return parts.join('  ');
}
