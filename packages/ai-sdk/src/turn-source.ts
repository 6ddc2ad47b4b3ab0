import type { ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import type { ReminderService, SurfacedReminder } from '@a2a-reminders/core';

/**
 * One turn boundary of the running task per call (spec R19), yielding the
 * reminders of the turn that starts now; `beginTurn`'s result fits. The
 * adapters call it once per model call, so each model step is one turn.
 */
export type ReminderTurnSource = () => Promise<{ readonly reminders: readonly SurfacedReminder[] }>;

/**
 * The turn source of a task the executor is running: `beginTurn` of the
 * reminder service with the execution's request context and event bus, so
 * the turn's `emitted` and `expired` events reach the task's stream (R21, R22).
 */
export function reminderTurns(
  service: Pick<ReminderService, 'beginTurn'>,
  requestContext: RequestContext,
  eventBus: ExecutionEventBus,
): ReminderTurnSource {
  return () => service.beginTurn(requestContext, eventBus);
}
