import type {
  InjectTaskReminderResponse,
  TaskReminder,
  TaskReminderEvent,
  TaskReminderRecord,
} from '@a2a-reminders/proto';
import { InjectTaskReminderResponseSchema } from '@a2a-reminders/proto';
import { ReminderError } from './errors.js';
import { cancelledEvent, displacedEvent, droppedEvent, expiredEvent } from './events.js';
import type { ReminderLimits } from './limits.js';
import { recordWith } from './record-with.js';
import { acceptedRecordOf, recordOf, sameContent } from './records.js';
import { pendingRecord } from './reminder-content.js';
import type { ReminderTransaction, ReminderWrite } from './store.js';
import { isLiveState } from './store.js';

// The state transitions of reminders, each one run inside a store transaction.
// They validate before they write, so a refusal leaves the task untouched.

export interface InjectInput {
  readonly taskId: string;
  readonly reminder: TaskReminder;
  /** The task's A2A state name, already checked to accept reminders. */
  readonly taskState: string;
  readonly nowMs: number;
  readonly limits: ReminderLimits;
}

export interface Outcome<T> {
  readonly result: T;
  readonly events: TaskReminderEvent[];
}

/** R13: an identical re-send returns the stored response; R14: a different one conflicts. */
export async function replayIfKnown(
  tx: ReminderTransaction,
  taskId: string,
  reminder: TaskReminder,
): Promise<InjectTaskReminderResponse | undefined> {
  const existing = await tx.get(reminder.id);
  if (existing === undefined) return undefined;
  if (sameContent(existing, reminder)) return acceptedResponse(taskId, existing);
  throw new ReminderError(
    'REMINDER_ID_CONFLICT',
    `reminder id ${reminder.id} was already used in task ${taskId} with different content`,
    {
      metadata: { taskId, reminderId: reminder.id },
      fieldViolations: [
        {
          field: 'reminder.id',
          description: 'was already used in this task with different content',
        },
      ],
    },
  );
}

/** R12: a task whose reminders were ended refuses new ones. */
export function terminalError(taskId: string, taskState: string): ReminderError {
  return new ReminderError('TASK_TERMINAL', `task ${taskId} is in terminal state ${taskState}`, {
    metadata: { taskId, taskState },
  });
}

/** R26: the task has no such reminder (never accepted, or no longer retained, R35, R48). */
export function notFoundError(taskId: string, reminderId: string): ReminderError {
  return new ReminderError('REMINDER_NOT_FOUND', `task ${taskId} has no reminder ${reminderId}`, {
    metadata: { taskId, reminderId },
  });
}

/**
 * R48: a task keeps at most `maxRetainedFinalRemindersPerTask` final records.
 * Every transition that makes a record final calls this in the same
 * transaction, so the bound holds at every moment; live records are never
 * touched, and the oldest to become final go first.
 */
function purgeRetained(
  tx: ReminderTransaction,
  limits: ReminderLimits,
): Promise<readonly string[]> {
  // The store's promise as is, not async: a displacement pays no frame of its own for it.
  return tx.purgeOldestFinal(limits.maxRetainedFinalRemindersPerTask);
}

/**
 * Accepts a new reminder: dedupe (R15, R16), quota (R17). An id whose record
 * was purged (R48) is not known any more and is accepted as a new reminder.
 */
export async function accept(
  tx: ReminderTransaction,
  input: InjectInput,
): Promise<Outcome<InjectTaskReminderResponse>> {
  const { taskId, nowMs, limits, reminder } = input;
  const displaced = reminder.dedupeKey === '' ? [] : await tx.liveWithDedupeKey(reminder.dedupeKey);
  const liveAfter = (await tx.liveCount()) - displaced.length;
  if (liveAfter >= limits.maxLiveRemindersPerTask) {
    throw new ReminderError(
      'REMINDER_QUOTA_EXCEEDED',
      `task ${taskId} already holds ${limits.maxLiveRemindersPerTask} live reminders`,
      { metadata: { taskId, limit: String(limits.maxLiveRemindersPerTask) } },
    );
  }
  const events: TaskReminderEvent[] = [];
  for (const d of displaced) {
    const ended = recordWith(d, d.seq, {
      state: 'DISPLACED',
      endTimeMs: nowMs,
      displacedBy: reminder.id,
    });
    tx.put(ended);
    events.push(displacedEvent(ended, nowMs, reminder.id));
  }
  const stored = pendingRecord(
    reminder,
    nowMs,
    { displacedReminderIds: displaced.map((d) => d.id), taskState: input.taskState },
    displaced[0],
  );
  tx.put(stored);
  if (displaced.length > 0) await purgeRetained(tx, limits);
  return { result: acceptedResponse(taskId, stored), events };
}

/**
 * R13: the answer first given for a reminder, rebuilt from its record as it
 * was at acceptance (PENDING, never surfaced) and what the answer added.
 */
export function acceptedResponse(
  taskId: string,
  stored: ReminderWrite,
): InjectTaskReminderResponse {
  return {
    $typeName: InjectTaskReminderResponseSchema.typeName,
    record: acceptedRecordOf(taskId, stored),
    displacedReminderIds: [...stored.acceptance.displacedReminderIds],
    taskState: stored.acceptance.taskState,
  };
}

/**
 * R27: ends every live reminder of a task that reached a terminal state:
 * DROPPED if it never reached a turn, EXPIRED if it did. Idempotent.
 */
export async function endAll(
  tx: ReminderTransaction,
  taskState: string,
  nowMs: number,
  limits: ReminderLimits,
): Promise<Outcome<boolean>> {
  if (tx.ended !== undefined) return { result: false, events: [] };
  const events: TaskReminderEvent[] = [];
  for (const r of await tx.live()) {
    if (r.state === 'PENDING') {
      const ended = recordWith(r, r.seq, { state: 'DROPPED', endTimeMs: nowMs });
      tx.put(ended);
      events.push(droppedEvent(ended, nowMs, taskState));
    } else {
      const ended = recordWith(r, r.seq, { state: 'EXPIRED', endTimeMs: nowMs });
      tx.put(ended);
      events.push(expiredEvent(ended, nowMs, r.turnsSurfaced < r.ttlTurns));
    }
  }
  tx.markEnded({ taskState, endTimeMs: nowMs, purgeAfterMs: nowMs + limits.retentionMs });
  if (events.length > 0) await purgeRetained(tx, limits);
  return { result: true, events };
}

/** R23–R26: retracts a live reminder. */
export async function cancel(
  tx: ReminderTransaction,
  taskId: string,
  reminderId: string,
  nowMs: number,
  limits: ReminderLimits,
): Promise<Outcome<TaskReminderRecord>> {
  const r = await tx.get(reminderId);
  if (r === undefined) throw notFoundError(taskId, reminderId);
  if (r.state === 'CANCELLED') return { result: recordOf(taskId, r), events: [] };
  if (!isLiveState(r.state)) {
    throw new ReminderError(
      'REMINDER_NOT_LIVE',
      `reminder ${reminderId} of task ${taskId} is ${r.state.toLowerCase()} and cannot be cancelled`,
      { metadata: { taskId, reminderId, reminderState: `REMINDER_STATE_${r.state}` } },
    );
  }
  const ended = recordWith(r, r.seq, { state: 'CANCELLED', endTimeMs: nowMs });
  tx.put(ended);
  // The answer is built from `ended`, so it stands even when a cap of 0 purges the record at once.
  await purgeRetained(tx, limits);
  return { result: recordOf(taskId, ended), events: [cancelledEvent(ended, nowMs)] };
}
