/**
 * Caller text made safe to print (`--log-prompts`). A task's message text
 * comes straight from whoever sent it, so before it reaches a terminal every
 * character that would act instead of print is shown as an escape (`\x1b`,
 * `\u202e`): control characters (escape sequences that recolor, move the
 * cursor or clear the screen; a carriage return that overwrites the line),
 * bidi and other format characters that reorder or hide text, line and
 * paragraph separators, and lone surrogates. Newline and tab stay, and so do
 * ZWNJ and ZWJ, which emoji and some scripts need and which move nothing.
 * Reminder fields already meet this (spec R46); message text is not checked
 * by anyone else.
 */
const UNPRINTABLE = /(?![\n\t\u200C\u200D])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

function escapeOf(c: string): string {
  const cp = c.codePointAt(0) ?? 0;
  const hex = cp.toString(16);
  if (cp < 0x100) return `\\x${hex.padStart(2, '0')}`;
  if (cp < 0x10000) return `\\u${hex.padStart(4, '0')}`;
  return `\\u{${hex}}`;
}

/** The text with every character that would act on a terminal shown as an escape. */
export function terminalSafe(text: string): string {
  return text.replace(UNPRINTABLE, escapeOf);
}
