import type { Task } from '@a2a-js/sdk';
import { Role, TaskState } from '@a2a-js/sdk';
import { textMessage } from '@a2a-reminders/core';
import type { TaskReminderEvent, TaskReminderRecord } from '@a2a-reminders/proto';
import {
  ReminderState,
  TaskReminderEventSchema,
  TaskReminderRecordSchema,
} from '@a2a-reminders/proto';
import { create } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TASK_TEXT, DEMO_CASES, remindersOf } from './demo-cases.js';
import type { DemoObservation } from './demo-oracle.js';
import { judgeDemo } from './demo-oracle.js';

// The oracle on its own, without a worker: the run the demo plans, then one
// departure from it at a time.

const SCOPE = { taskId: 'task-1', contextId: 'ctx-1' };
const reached = (id: string, turn: number): TaskReminderEvent =>
  create(TaskReminderEventSchema, {
    reminderId: id,
    event: { case: 'emitted', value: { turn, turnsRemaining: 0 } },
  });
const expired = (id: string, lastTurn: number): TaskReminderEvent =>
  create(TaskReminderEventSchema, {
    reminderId: id,
    event: { case: 'expired', value: { lastTurn, turnsSurfaced: 1, taskEnded: false } },
  });
const displaced = (id: string, by: string): TaskReminderEvent =>
  create(TaskReminderEventSchema, {
    reminderId: id,
    event: { case: 'displaced', value: { displacedBy: by } },
  });
const record = (
  id: string,
  state: ReminderState,
  more: { readonly firstTurn?: number; readonly displacedBy?: string } = {},
): TaskReminderRecord =>
  create(TaskReminderRecordSchema, {
    reminder: remindersOf(DEMO_CASES).find((s) => s.reminder.id === id)?.reminder ?? { id },
    state,
    ...more,
  });

function task(state: TaskState, ...texts: string[]): Task {
  return {
    id: SCOPE.taskId,
    contextId: SCOPE.contextId,
    status: { state, message: undefined, timestamp: undefined },
    artifacts: [],
    history: [
      textMessage(Role.ROLE_USER, SCOPE, DEFAULT_TASK_TEXT),
      ...texts.map((t) => textMessage(Role.ROLE_AGENT, SCOPE, t)),
    ],
    metadata: undefined,
  };
}

/** The run the demo plans: each case played on time, the alerts collapsed. */
function plannedRun(): DemoObservation {
  return {
    cases: DEMO_CASES,
    taskText: DEFAULT_TASK_TEXT,
    task: task(TaskState.TASK_STATE_COMPLETED, 'Done in 12 turns.'),
    finalState: TaskState.TASK_STATE_COMPLETED,
    records: [
      record('upstream-pr-4521', ReminderState.EXPIRED, { firstTurn: 2 }),
      record('ci-run-88', ReminderState.EXPIRED, { firstTurn: 3 }),
      record('cost-50', ReminderState.DISPLACED, { displacedBy: 'cost-75' }),
      record('cost-75', ReminderState.DISPLACED, { displacedBy: 'cost-90' }),
      record('cost-90', ReminderState.EXPIRED, { firstTurn: 4 }),
    ],
    events: [
      reached('upstream-pr-4521', 2),
      reached('ci-run-88', 3),
      expired('upstream-pr-4521', 3),
      displaced('cost-50', 'cost-75'),
      displaced('cost-75', 'cost-90'),
      expired('ci-run-88', 4),
      reached('cost-90', 4),
      expired('cost-90', 5),
    ],
  };
}

describe('the demo oracle', () => {
  it('passes the planned run', () => {
    const verdict = judgeDemo(plannedRun());
    expect(verdict.problems).toEqual([]);
    expect(verdict.outcomes.map((o) => [o.id, o.state, o.ok])).toEqual([
      ['upstream-pr-4521', 'EXPIRED', true],
      ['ci-run-88', 'EXPIRED', true],
      ['cost-50', 'DISPLACED', true],
      ['cost-75', 'DISPLACED', true],
      ['cost-90', 'EXPIRED', true],
    ]);
    expect(verdict.userMessages).toBe(1);
  });

  it('names a displaced alert that reached a turn first, and what to change', () => {
    const run = plannedRun();
    const verdict = judgeDemo({ ...run, events: [reached('cost-50', 4), ...run.events] });
    expect(verdict.problems).toEqual([
      'cost-50 reached turn 4 before it was displaced: the alerts took longer than one turn ' +
        'to send (give the worker a larger --turn-ms)',
    ]);
  });

  it('finds reminder text in the history, and a task that did not complete, by name', () => {
    const rebase = remindersOf(DEMO_CASES)[0]?.reminder.body ?? '';
    const verdict = judgeDemo({
      ...plannedRun(),
      task: task(TaskState.TASK_STATE_FAILED, `Noted: ${rebase}`),
      finalState: TaskState.TASK_STATE_FAILED,
    });
    expect(verdict.remindersInHistory).toEqual(['upstream-pr-4521']);
    expect(verdict.problems).toEqual([
      'the task ended FAILED, expected COMPLETED',
      "reminder text found in the task's history: upstream-pr-4521",
    ]);
  });

  it('reports a case that was never played and a reminder that was never listed', () => {
    const run = plannedRun();
    const verdict = judgeDemo({
      ...run,
      records: run.records.filter((r) => r.reminder?.id !== 'ci-run-88'),
      events: run.events.filter((e) => e.reminderId !== 'ci-run-88'),
    });
    expect(verdict.problems).toEqual([
      'ci-run-88 ended MISSING, expected EXPIRED (TTL used up)',
      'case not played: CI finished on the branch: forward the result',
    ]);
  });
});
