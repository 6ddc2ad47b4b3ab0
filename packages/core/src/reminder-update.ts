import type { StreamResponse, TaskState } from '@a2a-js/sdk';
import type { AgentExecutionEvent } from '@a2a-js/sdk/server';
import { reminderBatchOf } from './stream-events.js';
import { isTerminalState } from './task-states.js';

/**
 * R50: whether a stream item (or executor event) is a reminder update — a
 * status update that carries a reminder batch and repeats the task's last
 * status — rather than a status change. Only a terminal status change
 * carries a batch (R27, R30), so a non-terminal status update with a batch is
 * a repeat, and its message is not a new message.
 */
export function isReminderUpdate(item: StreamResponse | AgentExecutionEvent): boolean {
  let state: TaskState | undefined;
  if ('kind' in item) {
    if (item.kind !== 'statusUpdate') return false;
    state = item.data.status?.state;
  } else {
    if (item.payload?.$case !== 'statusUpdate') return false;
    state = item.payload.value.status?.state;
  }
  return reminderBatchOf(item) !== undefined && !isTerminalState(state);
}
