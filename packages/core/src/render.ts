import { escapeAttribute, neutralizeFraming } from './framing.js';
import type { ReminderFields } from './reminder-content.js';

/** What the renderers need of a reminder (a SurfacedReminder fits). */
export type RenderableReminder = Readonly<
  Pick<ReminderFields, 'id' | 'body' | 'source' | 'roleHint'>
>;

/** The framing tag of reminder blocks (R36). */
export const REMINDER_TAG = 'system-reminder';

/** Source named in a block whose reminder gave none. */
export const UNKNOWN_SOURCE = 'unspecified';

export { neutralizeFraming } from './framing.js';

/**
 * R36: one reminder as a text block that names its source:
 * `<system-reminder source="…">body</system-reminder>`. The body and source
 * are untrusted: R47 neutralizes every framing tag a model would read in the
 * body (look-alikes and invisible characters included) and escapes the source
 * one-to-one, so the block holds exactly one opening and one closing tag.
 */
export function renderReminderBlock(reminder: RenderableReminder): string {
  const source = escapeAttribute(reminder.source === '' ? UNKNOWN_SOURCE : reminder.source);
  return `<${REMINDER_TAG} source="${source}">\n${neutralizeFraming(reminder.body)}\n</${REMINDER_TAG}>`;
}

/** R36: a turn's reminders as text blocks in acceptance order, for a prompt without roles. */
export function renderReminderBlocks(reminders: readonly RenderableReminder[]): string {
  return reminders.map(renderReminderBlock).join('\n\n');
}

export interface ChatMessage {
  readonly role: string;
  readonly content: string;
}

export interface ChatRenderOptions {
  /** The roles the model runtime accepts, e.g. `['system', 'user', 'assistant']`. */
  readonly roles: readonly string[];
}

/** Roles that would claim user, model or tool authorship; never used for a reminder (R37). */
export const FORBIDDEN_REMINDER_ROLES: readonly string[] = [
  'user',
  'assistant',
  'tool',
  'function',
];

/** Fallback order when the roleHint is absent or unavailable (R37). */
export const FALLBACK_REMINDER_ROLES: readonly string[] = ['system', 'developer'];

/**
 * R37: the role a reminder is rendered with: its roleHint when the runtime
 * has that role and it is not a user, model or tool role; otherwise `system`,
 * then `developer`. Undefined when the runtime has none of them: render text
 * blocks instead (never the user role).
 */
export function reminderRole(
  reminder: RenderableReminder,
  options: ChatRenderOptions,
): string | undefined {
  const hint = reminder.roleHint.trim().toLowerCase();
  if (hint !== '' && !FORBIDDEN_REMINDER_ROLES.includes(hint) && options.roles.includes(hint)) {
    return hint;
  }
  return FALLBACK_REMINDER_ROLES.find((r) => options.roles.includes(r));
}

/**
 * R37, R38: a turn's reminders as chat messages, one per reminder, each
 * carrying its framed block (so the source stays visible). Add them to the
 * prompt of this turn only; never append them to the task's history.
 * Throws RangeError when the runtime has no instruction role.
 */
export function renderReminderMessages(
  reminders: readonly RenderableReminder[],
  options: ChatRenderOptions,
): ChatMessage[] {
  return reminders.map((reminder) => {
    const role = reminderRole(reminder, options);
    if (role === undefined) {
      throw new RangeError(
        'the runtime has no system or developer role; render reminders with renderReminderBlocks',
      );
    }
    return { role, content: renderReminderBlock(reminder) };
  });
}
