import type { SurfacedReminder } from '@a2a-reminders/core';
import { renderReminderMessages } from '@a2a-reminders/core';

/** A system message as the AI SDK's prompts (ModelMessage and the provider prompt) both write it. */
export interface ReminderSystemMessage {
  readonly role: 'system';
  readonly content: string;
}

/**
 * The roles of an AI SDK prompt. It has no developer role (providers map
 * `system` to `developer` where the model wants that), so every reminder is
 * a system message: a `roleHint` of `developer` falls back to it, and one of
 * `user`, `assistant` or `tool` is never honoured (R37).
 */
export const AI_SDK_PROMPT_ROLES: readonly string[] = ['system', 'user', 'assistant', 'tool'];

/** R36, R37: one system message per reminder, holding its framed block, in acceptance order. */
export function reminderSystemMessages(
  reminders: readonly SurfacedReminder[],
): ReminderSystemMessage[] {
  return renderReminderMessages(reminders, { roles: AI_SDK_PROMPT_ROLES }).map((m) => ({
    role: 'system',
    content: m.content,
  }));
}

/**
 * Where a step's reminders go in its prompt: `end`, after the last message,
 * where the model reads them as the newest context; or `after-system`, right
 * after the leading system messages, for providers that refuse a system
 * message once the conversation has started.
 */
export type ReminderPosition = 'end' | 'after-system';

/** `messages` with the reminders placed per `position`; a new array, `messages` untouched (R38). */
export function withReminders<M extends { readonly role: string }>(
  messages: readonly M[],
  reminders: readonly M[],
  position: ReminderPosition,
): M[] {
  if (reminders.length === 0) return [...messages];
  if (position === 'end') return [...messages, ...reminders];
  let leading = 0;
  while (leading < messages.length && messages[leading]?.role === 'system') leading += 1;
  return [...messages.slice(0, leading), ...reminders, ...messages.slice(leading)];
}
