/**
 * R47: finding framing tags the way a model would read them. A model does not
 * see code points; it sees `＜`, `﹤` and `<` alike, reads past invisible
 * characters, and reads `sуstеm` (with Cyrillic у and е) as `system`. So the
 * search for `<system-reminder` and `</system-reminder` runs on a fold of the
 * text, and every tag found there is neutralized in the original text.
 */

/**
 * Look-alikes that compatibility decomposition (NFKD) leaves alone: the
 * characters UTS #39's confusables.txt (Unicode 14) lists as confusable with
 * `<`, `/`, `\`, `-`, `_` or a letter of `system reminder`, lower-cased, plus
 * the angle brackets `❬ ❰ ⟨ ⧼ 〈` and the small capitals ᴅ ᴇ ᴍ ɴ ᴛ.
 */
const LOOKALIKE_GROUPS: ReadonlyArray<readonly [string, string]> = [
  ['-', '\u02D7\u06D4\u2043\u2212\u2796\u2CBB'],
  ['/', '\u1735\u2041\u2044\u2215\u2571\u27CB\u29F8\u2CC7\u3033\u30CE\u31D3\u4E3F\u{1D23A}'],
  ['<', '\u02C2\u1438\u16B2\u2039\u276C\u276E\u2770\u27E8\u29FC\u3008\u{1D236}'],
  ['\\', '\u2216\u27CD\u29F5\u29F9\u31D4\u4E36\u{1D20F}\u{1D23B}'],
  ['_', '\u07FA'],
  ['d', '\u0501\u146F\u15DE\u15EA\u1D05\uA4D2\uA4D3\uAB70\uABB7'],
  ['e', '\u03B5\u0435\u04BD\u1D07\u212E\u22FF\u2D39\uA4F0\uAB32\uAB7C\u{10286}\u{118C6}\u{118CE}'],
  ['i', '\u0131\u0269\u026A\u03B9\u0456\u04CF\u2373\uA647\uAB75\u{118C3}'],
  [
    'm',
    '\u03BC\u03FB\u043C\u15F0\u16D6\u1D0D\u2C99\uA4DF\uAB87\u{102B0}\u{10311}\u{11700}\u{118E3}',
  ],
  ['n', '\u0274\u03BD\u0578\u057C\u2C9B\uA4E0\u{10513}'],
  [
    'r',
    '\u0280\u0433\u1587\u1D26\u2C85\uA4E3\uAB47\uAB48\uAB71\uAB81\uABA2\u{104DC}\u{16F35}\u{1D216}',
  ],
  ['s', '\u01BD\u0455\u057F\uA4E2\uA731\uABA5\uABAA\u{10296}\u{10448}\u{118C1}\u{16F3A}'],
  [
    't',
    '\u03C4\u0442\u1D1B\u22A4\u27D9\u2CA7\uA4D4\uAB72\u{10297}\u{102B1}\u{10315}\u{16F0A}\u{1F768}',
  ],
  [
    'y',
    '\u0263\u028F\u03B3\u03C5\u0443\u04AF\u10E7\u1D8C\u1EFF\u2CA9\uA4EC\uAB5A\uAB79\uAB8D\u{102B2}\u{118C4}\u{118DC}\u{16F43}',
  ],
];

const LOOKALIKES: ReadonlyMap<string, string> = new Map(
  LOOKALIKE_GROUPS.flatMap(([ascii, chars]) => [...chars].map((c) => [c, ascii] as const)),
);

/** Read as one space: white space, line breaks and the blank braille pattern. */
const SPACE = /[\t\n\v\f\r\u0085\p{Z}\u2800]/u;
/** Read as nothing: other controls, format characters, default-ignorables, combining marks. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\p{M}]/u;
const DASH = /\p{Pd}/u;
const CONNECTOR = /\p{Pc}/u;

/** The tag block's U+E0020–U+E007E shadow printable ASCII; models read them as that ASCII. */
const TAG_SHADOW_FIRST = 0xe0020;
const TAG_SHADOW_LAST = 0xe007e;
const TAG_SHADOW_OFFSET = 0xe0000;

function foldDecomposed(x: string): string {
  if (SPACE.test(x)) return ' ';
  if (INVISIBLE.test(x)) return '';
  if (DASH.test(x)) return '-';
  if (CONNECTOR.test(x)) return '_';
  return LOOKALIKES.get(x) ?? x;
}

/** How a model reads one code point, for framing purposes (R47). */
export function foldCodePoint(c: string): string {
  const cp = c.codePointAt(0) ?? 0;
  if (cp < 0x80) {
    if (cp >= 0x41 && cp <= 0x5a) return String.fromCharCode(cp + 0x20);
    if (cp > 0x20 && cp < 0x7f) return c;
    return foldDecomposed(c);
  }
  if (cp >= TAG_SHADOW_FIRST && cp <= TAG_SHADOW_LAST) {
    return foldCodePoint(String.fromCharCode(cp - TAG_SHADOW_OFFSET));
  }
  let folded = '';
  for (const x of c.normalize('NFKD').toLowerCase().normalize('NFKD')) {
    folded += foldDecomposed(x);
  }
  return folded;
}

/** The fold of each ASCII code point, looked up instead of computed. */
const ASCII_FOLDS: readonly string[] = Array.from({ length: 0x80 }, (_, cp) =>
  foldCodePoint(String.fromCharCode(cp)),
);

/** Folds of non-ASCII code points seen so far; bounded, as texts choose which. */
const FOLD_CACHE = new Map<number, string>();
const FOLD_CACHE_MAX = 4096;

function foldCached(cp: number): string {
  let f = FOLD_CACHE.get(cp);
  if (f === undefined) {
    f = foldCodePoint(String.fromCodePoint(cp));
    if (FOLD_CACHE.size < FOLD_CACHE_MAX) FOLD_CACHE.set(cp, f);
  }
  return f;
}

/** The folded text and, for each of its UTF-16 units, where its code point starts in the original. */
interface Folded {
  readonly text: string;
  readonly origins: readonly number[];
}

function fold(text: string): Folded {
  const parts: string[] = [];
  const origins: number[] = [];
  for (let offset = 0; offset < text.length; ) {
    const cp = text.codePointAt(offset) ?? 0;
    const f = cp < 0x80 ? (ASCII_FOLDS[cp] ?? '') : foldCached(cp);
    parts.push(f);
    for (let i = 0; i < f.length; i += 1) origins.push(offset);
    offset += cp > 0xffff ? 2 : 1;
  }
  return { text: parts.join(''), origins };
}

/**
 * Whatever folds to `<` is, after NFKD, `<`, a look-alike of it, or the tag
 * character shadowing it (lower-casing adds no bracket). NFKD of a whole text
 * holds the same characters as NFKD of each code point, so a text without
 * them has no framing tag and skips the fold.
 */
const LESS_THAN_READERS = new RegExp(
  `[<${LOOKALIKE_GROUPS.find(([ascii]) => ascii === '<')?.[1] ?? ''}\u{E003C}]`,
  'u',
);

function mayHoldFramingTag(text: string): boolean {
  return LESS_THAN_READERS.test(text.normalize('NFKD'));
}

/**
 * A framing tag on the folded text: `<`, any run of spaces, `/` and `\`
 * (`</`, `< /`, JSON's `<\/`), `system`, any run of spaces, `-`, `_`, `.`
 * and `:`, then `reminder`. Attributes and the closing `>` do not matter.
 */
const FRAMING_TAG = /<([ /\\]*)system[ \-_.:]*reminder/g;

/** One framing tag in a text, as a model reads it. */
export interface FramingTag {
  /** Offset, in the original text, of the code point that reads as the tag's `<`. */
  readonly start: number;
  /** True for a closing tag (a `/` or `\` before the name). */
  readonly closing: boolean;
}

/** Every framing tag in the text, as a model would read it (R47). */
export function findFramingTags(text: string): FramingTag[] {
  if (!mayHoldFramingTag(text)) return [];
  const { text: folded, origins } = fold(text);
  const tags: FramingTag[] = [];
  for (const match of folded.matchAll(FRAMING_TAG)) {
    tags.push({ start: origins[match.index] ?? 0, closing: /[/\\]/.test(match[1] ?? '') });
  }
  return tags;
}

/**
 * R36, R47: neutralizes every framing tag in untrusted text so it can neither
 * open nor close a block: the code point read as the tag's `<` becomes `&lt;`.
 * Nothing else changes, and text without framing tags is returned as is.
 */
export function neutralizeFraming(text: string): string {
  const tags = findFramingTags(text);
  if (tags.length === 0) return text;
  let out = '';
  let from = 0;
  for (const { start } of tags) {
    if (start < from) continue; // one code point read as two `<`: already replaced
    const cp = text.codePointAt(start) ?? 0;
    out += `${text.slice(from, start)}&lt;`;
    from = start + (cp > 0xffff ? 2 : 1);
  }
  return out + text.slice(from);
}

const NAMED_REFERENCES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '"': '&quot;',
  '<': '&lt;',
  '>': '&gt;',
};

/** Characters an attribute shows as a character reference: controls and invisibles. */
const REFERENCED = /[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\p{Zl}\p{Zp}]/u;

/**
 * R47: an attribute value, escaped one-to-one. `&`, `"`, `<` and `>` become
 * named references; controls, invisible characters and anything a model would
 * read as one of those four (`＜`, `‹`, a tag character…) become `&#x…;`.
 * Every other character stands for itself and no character is `&`, so two
 * distinct values never escape to the same text.
 */
export function escapeAttribute(value: string): string {
  let out = '';
  for (const c of value) {
    const named = NAMED_REFERENCES[c];
    if (named !== undefined) out += named;
    else if (REFERENCED.test(c) || /[&"<>]/.test(foldCodePoint(c))) {
      out += `&#x${(c.codePointAt(0) ?? 0).toString(16).toUpperCase()};`;
    } else out += c;
  }
  return out;
}
