import type { LanguageModelMiddleware } from 'ai';
import type { ReminderPosition } from './reminder-messages.js';
import { reminderSystemMessages, withReminders } from './reminder-messages.js';
import type { ReminderTurnSource } from './turn-source.js';

export interface ReminderMiddlewareOptions {
  /** Where the reminders go in each call's prompt; default `end`. */
  readonly position?: ReminderPosition;
}

/**
 * A language-model middleware (`wrapLanguageModel`) for runtimes that call
 * the model themselves: every call of the wrapped model, generate or stream,
 * is one turn boundary (R19), and that turn's reminders are added to that
 * call's prompt as system messages (R36, R37). The caller's prompt array is
 * never changed (R38). Use it where each model call is a turn; inside the AI
 * SDK's tool loop use {@link reminderPrepareStep} instead, never both.
 */
export function reminderMiddleware(
  turns: ReminderTurnSource,
  options: ReminderMiddlewareOptions = {},
): LanguageModelMiddleware {
  const position = options.position ?? 'end';
  return {
    specificationVersion: 'v3',
    transformParams: async ({ params }) => {
      const reminders = reminderSystemMessages((await turns()).reminders);
      if (reminders.length === 0) return params;
      return { ...params, prompt: withReminders(params.prompt, reminders, position) };
    },
  };
}
