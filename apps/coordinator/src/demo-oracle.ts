import type { Task } from '@a2a-js/sdk';
import { Role, TaskState } from '@a2a-js/sdk';
import { messageText } from '@a2a-reminders/core';
import type { TaskReminderEvent, TaskReminderRecord } from '@a2a-reminders/proto';
import type { DemoCase, DemoReminder } from './demo-cases.js';
import { remindersOf } from './demo-cases.js';
import { reminderStateName, taskStateLabel } from './format.js';

/** What happened to one reminder, and whether that is what the demo expected. */
export interface ReminderOutcome {
  readonly id: string;
  readonly state: string;
  readonly expected: string;
  readonly firstTurn: number | undefined;
  readonly displacedBy: string;
  /** Turns at which the stream reported the reminder reaching the model. */
  readonly reachedTurns: readonly number[];
  /** The last event the stream carried for it, e.g. `expired`. */
  readonly lastEvent: string | undefined;
  /** For EXPIRED: whether its TTL ran out (false when the task's end expired it). */
  readonly expiredByTtl: boolean | undefined;
  readonly ok: boolean;
}

/** What the single-worker demo saw: the stream's events, the fates listed, the task at its end. */
export interface DemoObservation {
  readonly cases: readonly DemoCase[];
  readonly taskText: string;
  /** The task as GetTask returned it once it ended. */
  readonly task: Task;
  readonly finalState: TaskState | undefined;
  /** ListTaskReminders, every page. */
  readonly records: readonly TaskReminderRecord[];
  /** Every reminder event the stream carried, in order. */
  readonly events: readonly TaskReminderEvent[];
}

export interface DemoVerdict {
  readonly outcomes: readonly ReminderOutcome[];
  /** User messages in the task's history. */
  readonly userMessages: number;
  /** Ids of reminders whose body shows up anywhere in the task's history. */
  readonly remindersInHistory: readonly string[];
  readonly problems: readonly string[];
}

/**
 * The demo's oracle: every reminder reached the fate its case planned (read
 * from ListTaskReminders and the stream's events), the task completed, every
 * case was played, and the history holds the delegation as its only user
 * message and no reminder text (R37: never the user role; R38: never appended to the history).
 */
export function judgeDemo(seen: DemoObservation): DemoVerdict {
  const problems: string[] = [];
  const sent = remindersOf(seen.cases);
  const outcomes = sent.map((s) =>
    outcomeOf(
      s,
      seen.records.find((r) => r.reminder?.id === s.reminder.id),
      seen.events,
    ),
  );
  for (const o of outcomes) {
    if (o.ok) continue;
    if (o.state === 'DISPLACED' && o.reachedTurns.length > 0) {
      // The fate is right but the collapse failed: a turn boundary fell between the alerts.
      problems.push(
        `${o.id} reached turn ${o.reachedTurns[0]} before it was displaced: the alerts took ` +
          'longer than one turn to send (give the worker a larger --turn-ms)',
      );
    } else {
      problems.push(`${o.id} ended ${o.state}, expected ${o.expected}`);
    }
  }
  if (seen.finalState !== TaskState.TASK_STATE_COMPLETED) {
    problems.push(`the task ended ${taskStateLabel(seen.finalState)}, expected COMPLETED`);
  }
  for (const c of seen.cases) {
    if (c.reminders.every((r) => !seen.events.some((e) => e.reminderId === r.reminder.id))) {
      problems.push(`case not played: ${c.title}`);
    }
  }

  const { history } = seen.task;
  const users = history.filter((m) => m.role === Role.ROLE_USER);
  if (users.length !== 1 || messageText(users[0]) !== seen.taskText) {
    problems.push(`history holds ${users.length} user messages, expected only the delegation`);
  }
  const remindersInHistory = sent
    .filter(({ reminder }) => history.some((m) => messageText(m).includes(reminder.body)))
    .map(({ reminder }) => reminder.id);
  if (remindersInHistory.length > 0) {
    problems.push(`reminder text found in the task's history: ${remindersInHistory.join(', ')}`);
  }
  return { outcomes, userMessages: users.length, remindersInHistory, problems };
}

/**
 * One reminder's outcome. A reminder whose TTL is to run out must have
 * reached exactly one turn and expired by TTL (R21, R22); a displaced one
 * must have been collapsed by its successor's dedupeKey before any turn, so
 * the worker never saw it (R15, R16).
 */
function outcomeOf(
  sent: DemoReminder,
  record: TaskReminderRecord | undefined,
  events: readonly TaskReminderEvent[],
): ReminderOutcome {
  const id = sent.reminder.id;
  const own = events.filter((e) => e.reminderId === id);
  const reachedTurns = own.flatMap((e) => (e.event.case === 'emitted' ? [e.event.value.turn] : []));
  const expiredEvent = own.find((e) => e.event.case === 'expired');
  const expiredByTtl =
    expiredEvent?.event.case === 'expired' ? !expiredEvent.event.value.taskEnded : undefined;
  const state = record === undefined ? 'MISSING' : reminderStateName(record.state);
  const lastEvent = own.at(-1)?.event.case;
  let ok: boolean;
  let expected: string;
  if (sent.expected.state === 'EXPIRED') {
    expected = 'EXPIRED (TTL used up)';
    ok = state === 'EXPIRED' && expiredByTtl === true && reachedTurns.length === 1;
  } else {
    expected = `DISPLACED by ${sent.expected.by}`;
    ok =
      state === 'DISPLACED' &&
      record?.displacedBy === sent.expected.by &&
      reachedTurns.length === 0 &&
      lastEvent === 'displaced';
  }
  return {
    id,
    state,
    expected,
    firstTurn: record?.firstTurn,
    displacedBy: record?.displacedBy ?? '',
    reachedTurns,
    lastEvent,
    expiredByTtl,
    ok,
  };
}
