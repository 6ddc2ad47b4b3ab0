/**
 * A test-side reading of text as a model would see it, written apart from
 * framing.ts so the rendering tests (R47) do not check the fold against
 * itself. It knows the look-alikes of the tests' alphabet by name.
 */

/** Look-alikes the tests use, with what a reader takes each for. */
export const LOOKALIKES_READ_AS: ReadonlyArray<readonly [string, string]> = [
  ['\uFF1C', '<'], // FULLWIDTH LESS-THAN SIGN
  ['\uFE64', '<'], // SMALL LESS-THAN SIGN
  ['\u2039', '<'], // SINGLE LEFT-POINTING ANGLE QUOTATION MARK
  ['\u3008', '<'], // LEFT ANGLE BRACKET
  ['\u27E8', '<'], // MATHEMATICAL LEFT ANGLE BRACKET
  ['\u02C2', '<'], // MODIFIER LETTER LEFT ARROWHEAD
  ['\u{E003C}', '<'], // TAG LESS-THAN SIGN
  ['\uFF0F', '/'], // FULLWIDTH SOLIDUS
  ['\u2215', '/'], // DIVISION SLASH
  ['\u2044', '/'], // FRACTION SLASH
  ['\u{E002F}', '/'], // TAG SOLIDUS
  ['\u2010', '-'], // HYPHEN
  ['\u2011', '-'], // NON-BREAKING HYPHEN
  ['\u2013', '-'], // EN DASH
  ['\u2212', '-'], // MINUS SIGN
  ['\uFE63', '-'], // SMALL HYPHEN-MINUS
  ['\uFF3F', '_'], // FULLWIDTH LOW LINE
  ['\u00A0', ' '], // NO-BREAK SPACE
  ['\u3000', ' '], // IDEOGRAPHIC SPACE
  ['\u0455', 's'], // CYRILLIC SMALL LETTER DZE
  ['\u0405', 's'], // CYRILLIC CAPITAL LETTER DZE
  ['\uA731', 's'], // LATIN LETTER SMALL CAPITAL S
  ['\u0443', 'y'], // CYRILLIC SMALL LETTER U
  ['\u04AF', 'y'], // CYRILLIC SMALL LETTER STRAIGHT U
  ['\u03A5', 'y'], // GREEK CAPITAL LETTER UPSILON
  ['\u0442', 't'], // CYRILLIC SMALL LETTER TE
  ['\u03C4', 't'], // GREEK SMALL LETTER TAU
  ['\u0422', 't'], // CYRILLIC CAPITAL LETTER TE
  ['\u0435', 'e'], // CYRILLIC SMALL LETTER IE
  ['\u0415', 'e'], // CYRILLIC CAPITAL LETTER IE
  ['\u03B5', 'e'], // GREEK SMALL LETTER EPSILON
  ['\u0395', 'e'], // GREEK CAPITAL LETTER EPSILON
  ['\u1D07', 'e'], // LATIN LETTER SMALL CAPITAL E
  ['\u043C', 'm'], // CYRILLIC SMALL LETTER EM
  ['\u039C', 'm'], // GREEK CAPITAL LETTER MU
  ['\u0433', 'r'], // CYRILLIC SMALL LETTER GHE
  ['\u0280', 'r'], // LATIN LETTER SMALL CAPITAL R
  ['\u0456', 'i'], // CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I
  ['\u03B9', 'i'], // GREEK SMALL LETTER IOTA
  ['\u0131', 'i'], // LATIN SMALL LETTER DOTLESS I
  ['\u039D', 'n'], // GREEK CAPITAL LETTER NU
  ['\u0578', 'n'], // ARMENIAN SMALL LETTER VO
  ['\u0501', 'd'], // CYRILLIC SMALL LETTER KOMI DE
  ['\u13A0', 'd'], // CHEROKEE LETTER A
  ['\u{1D42C}', 's'], // MATHEMATICAL BOLD SMALL S
  ['\uFF53', 's'], // FULLWIDTH LATIN SMALL LETTER S
  ['\u24E2', 's'], // CIRCLED LATIN SMALL LETTER S
];

/** Characters a reader does not see at all. */
export const INVISIBLES: readonly string[] = [
  '\u200B', // ZERO WIDTH SPACE
  '\u200C', // ZERO WIDTH NON-JOINER
  '\u200D', // ZERO WIDTH JOINER
  '\u2060', // WORD JOINER
  '\u2063', // INVISIBLE SEPARATOR
  '\uFEFF', // ZERO WIDTH NO-BREAK SPACE
  '\u00AD', // SOFT HYPHEN
  '\u034F', // COMBINING GRAPHEME JOINER
  '\uFE0F', // VARIATION SELECTOR-16
  '\u202E', // RIGHT-TO-LEFT OVERRIDE
  '\u2066', // LEFT-TO-RIGHT ISOLATE
  '\u200E', // LEFT-TO-RIGHT MARK
  '\u0301', // COMBINING ACUTE ACCENT
  '\u{E0001}', // LANGUAGE TAG
];

const readAs = new Map<string, string>(LOOKALIKES_READ_AS);
const invisible = new Set(INVISIBLES);

/** The text as a reader takes it: look-alikes read as ASCII, invisibles and marks skipped, lower case. */
export function modelReading(text: string): string {
  let out = '';
  for (const c of text.normalize('NFKD')) {
    // Combining marks read as part of the letter they sit on: s̶ is still s.
    if (invisible.has(c) || /\p{M}/u.test(c)) continue;
    out += readAs.get(c) ?? c.toLowerCase();
  }
  return out;
}

/**
 * The framing tags a reader finds, in order, as `open` and `close`: `<`,
 * then any white space, slashes and backslashes, then `system`, any white
 * space, `-`, `_`, `.` or `:`, then `reminder`.
 */
export function framesRead(text: string): Array<'open' | 'close'> {
  return [...modelReading(text).matchAll(/<([\s/\\]*)system[\s_.:-]*reminder/g)].map((m) =>
    /[/\\]/.test(m[1] ?? '') ? 'close' : 'open',
  );
}
