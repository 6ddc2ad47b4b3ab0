import type { ModelMessage, PrepareStepFunction, PrepareStepResult, Tool } from 'ai';
import type { ReminderPosition } from './reminder-messages.js';
import { reminderSystemMessages, withReminders } from './reminder-messages.js';
import type { ReminderTurnSource } from './turn-source.js';

export interface ReminderPrepareStepOptions<TOOLS extends Record<string, Tool>> {
  /** Where the reminders go in each step's messages; default `end`. */
  readonly position?: ReminderPosition;
  /** A prepareStep of your own, run first; its `messages`, if any, get the reminders. */
  readonly prepareStep?: PrepareStepFunction<TOOLS>;
}

/**
 * A `prepareStep` for `generateText`, `streamText` and `ToolLoopAgent`: each
 * step of the tool loop is one turn boundary (R19), and that turn's
 * reminders are added, as system messages (R36, R37), to the messages of
 * that step only. The loop's own message list never holds them, so the next
 * step, the response messages and anything the agent stores are free of
 * reminder text (R38).
 */
export function reminderPrepareStep<TOOLS extends Record<string, Tool> = Record<string, Tool>>(
  turns: ReminderTurnSource,
  options: ReminderPrepareStepOptions<TOOLS> = {},
): PrepareStepFunction<TOOLS> {
  const position = options.position ?? 'end';
  return async (step) => {
    const own: PrepareStepResult<TOOLS> = await options.prepareStep?.(step);
    const reminders = reminderSystemMessages((await turns()).reminders);
    if (reminders.length === 0) return own;
    const messages: ModelMessage[] = withReminders<ModelMessage>(
      own?.messages ?? step.messages,
      reminders,
      position,
    );
    return { ...own, messages };
  };
}
