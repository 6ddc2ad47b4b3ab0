import type { SurfacedReminder } from '@a2a-reminders/core';
import { renderReminderMessages } from '@a2a-reminders/core';
import type { ChatMessage, ChatRole } from './model.js';

/** The roles of the worker's prompt format; reminders may use only system and developer. */
export const PROMPT_ROLES: readonly ChatRole[] = ['system', 'developer', 'user', 'assistant'];

/**
 * A turn's reminders as prompt messages, through core's renderer (spec R36,
 * R37): each one a `<system-reminder source="…">` block, in a system or
 * developer message per its roleHint (system when it has none), never a
 * user message.
 */
export function reminderMessages(reminders: readonly SurfacedReminder[]): ChatMessage[] {
  return renderReminderMessages(reminders, { roles: PROMPT_ROLES }).map((m) => ({
    role: m.role as ChatRole,
    content: m.content,
    origin: 'reminder',
  }));
}
