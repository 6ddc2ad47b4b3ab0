import { TaskState, taskStateToJSON } from '@a2a-js/sdk';

/** States in which a task accepts reminders and runs turns (spec R10). */
export const ACCEPTING_STATES: readonly TaskState[] = [
  TaskState.TASK_STATE_SUBMITTED,
  TaskState.TASK_STATE_WORKING,
];

/** Interrupted states: reminders are accepted and held until turns run again (spec R11). */
export const HOLDING_STATES: readonly TaskState[] = [
  TaskState.TASK_STATE_INPUT_REQUIRED,
  TaskState.TASK_STATE_AUTH_REQUIRED,
];

/** Terminal states: the task refuses reminders and its live ones end (spec R12, R27). */
export const TERMINAL_STATES: readonly TaskState[] = [
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
];

export function isTerminalState(state: TaskState | undefined): boolean {
  return state !== undefined && TERMINAL_STATES.includes(state);
}

export function acceptsReminders(state: TaskState | undefined): boolean {
  return (
    state !== undefined && (ACCEPTING_STATES.includes(state) || HOLDING_STATES.includes(state))
  );
}

/** The ProtoJSON enum name of a task state (`TASK_STATE_WORKING`), as the wire carries it. */
export function taskStateName(state: TaskState | undefined): string {
  return taskStateToJSON(state ?? TaskState.TASK_STATE_UNSPECIFIED);
}
