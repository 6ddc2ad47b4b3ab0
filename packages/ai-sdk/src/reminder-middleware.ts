import type { LanguageModelMiddleware } from 'ai';
import type { ReminderPosition, ReminderSystemMessage } from './reminder-messages.js';
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
 *
 * A call with the very prompt array of the call before it is a retry of that
 * call (the AI SDK retries a failed call with the same prompt): it gets the
 * same reminders and takes no new turn, so a reminder is never used up on an
 * attempt the model did not answer.
 */
export function reminderMiddleware(
  turns: ReminderTurnSource,
  options: ReminderMiddlewareOptions = {},
): LanguageModelMiddleware {
  const position = options.position ?? 'end';
  let last:
    | { readonly prompt: unknown; readonly reminders: Promise<ReminderSystemMessage[]> }
    | undefined;
  return {
    specificationVersion: 'v3',
    transformParams: async ({ params }) => {
      if (last?.prompt !== params.prompt) {
        last = {
          prompt: params.prompt,
          reminders: turns().then((turn) => reminderSystemMessages(turn.reminders)),
        };
      }
      const reminders = await last.reminders;
      if (reminders.length === 0) return params;
      return { ...params, prompt: withReminders(params.prompt, reminders, position) };
    },
  };
}
