/**
 * R46: the characters a request's string fields refuse. Reminder text reaches
 * a model's prompt and people's terminals (worker logs, CLIs), so no field may
 * carry characters that act instead of being read: control characters
 * (terminal escape sequences, carriage returns that overwrite a line),
 * characters that reorder what a reader sees (bidi controls, "Trojan Source"),
 * or text a model decodes but a person cannot see (Unicode tag characters,
 * "ASCII smuggling").
 */

/**
 * `text` is free text (`reminder.body`): newline and tab are allowed, and so
 * are the invisible characters real text needs (ZWJ in emoji sequences, ZWNJ
 * in Persian and Indic scripts, variation selectors, soft hyphens).
 * `name` is a short label or identifier (`source`, `dedupeKey`, `roleHint`,
 * `taskId`, `tenant`, `reminderId`): nothing invisible at all, so what a
 * person sees is all there is.
 */
export type TextFieldKind = 'text' | 'name';

interface CharacterClass {
  readonly pattern: RegExp;
  readonly description: string;
}

/** Unicode Cc other than tab (U+0009) and newline (U+000A). */
const TEXT_CONTROL: CharacterClass = {
  pattern: /(?![\t\n])\p{Cc}/u,
  description: 'must not contain control characters other than newline and tab',
};

/** Every Unicode Cc: C0 controls, DEL and C1 controls. */
const NAME_CONTROL: CharacterClass = {
  pattern: /\p{Cc}/u,
  description: 'must not contain control characters',
};

/** Bidirectional formatting characters: ALM, LRM, RLM, LRE to RLO, LRI to PDI. */
const BIDI: CharacterClass = {
  pattern: /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u,
  description: 'must not contain bidirectional formatting characters',
};

/**
 * Characters that hide text: the tag block U+E0000–U+E007F (invisible, yet
 * models read them as the ASCII they shadow), interlinear annotation
 * U+FFF9–U+FFFB, and the deprecated format characters U+206A–U+206F.
 */
const HIDDEN_TEXT: CharacterClass = {
  pattern: /[\u206A-\u206F\uFFF9-\uFFFB\u{E0000}-\u{E007F}]/u,
  description:
    'must not contain hidden-text characters (tag characters, interlinear annotation, deprecated format characters)',
};

/**
 * Everything invisible: every Cf (bidi controls and tag characters included),
 * every default-ignorable code point (ZWSP, ZWJ, ZWNJ, word joiner, BOM, soft
 * hyphen, variation selectors, Hangul fillers, combining grapheme joiner…),
 * and the line and paragraph separators U+2028 and U+2029.
 */
const INVISIBLE: CharacterClass = {
  pattern: /[\p{Cf}\p{Default_Ignorable_Code_Point}\p{Zl}\p{Zp}]/u,
  description:
    'must not contain invisible or format characters (Unicode Cf, default-ignorable code points, line or paragraph separators)',
};

const CLASSES: Readonly<Record<TextFieldKind, readonly CharacterClass[]>> = {
  text: [TEXT_CONTROL, BIDI, HIDDEN_TEXT],
  name: [NAME_CONTROL, INVISIBLE],
};

/** `U+001B` for the code point at `offset`. */
function codePointName(text: string, offset: number): string {
  const cp = text.codePointAt(offset) ?? 0;
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * R46: one description per class of refused character the text contains,
 * naming the first one by code point and UTF-16 offset (never the raw
 * character, which would carry the problem into the error message).
 */
export function refusedCharacters(text: string, kind: TextFieldKind): string[] {
  const found: string[] = [];
  for (const { pattern, description } of CLASSES[kind]) {
    const match = pattern.exec(text);
    if (match !== null) {
      found.push(`${description} (${codePointName(text, match.index)} at offset ${match.index})`);
    }
  }
  return found;
}
