import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findFramingTags, neutralizeFraming } from './framing.js';
import { renderReminderBlock, renderReminderMessages } from './render.js';
import { framesRead, INVISIBLES, LOOKALIKES_READ_AS } from './testing/model-reading.js';

/**
 * R47 as properties: text built from tag fragments, look-alikes, invisible
 * characters and entity-like text never yields a second frame, and source
 * escaping never maps two sources to one attribute.
 */

const FRAGMENTS = [
  '<',
  '</',
  '<\\/',
  '< / ',
  '>',
  'system',
  'reminder',
  'system-reminder',
  'SYSTEM_REMINDER',
  'system reminder',
  'sys',
  'tem',
  'remind',
  'er',
  '-',
  '_',
  '.',
  ':',
  ' ',
  '/',
  '\\',
  '"',
  "'",
  '&',
  '&lt;',
  '&amp;',
  '&quot;',
  '&#x3C;',
  ';',
  '=',
  'source="x"',
  '\n',
  '\t',
  'a',
  'é',
  '👩\u200d💻',
];

const PIECES: readonly string[] = [
  ...FRAGMENTS,
  ...LOOKALIKES_READ_AS.map(([c]) => c),
  ...INVISIBLES,
];

/** Text from the pieces above, and now and then arbitrary code points among them. */
const hostileText = fc
  .array(
    fc.oneof(
      { weight: 9, arbitrary: fc.constantFrom(...PIECES) },
      fc.string({ unit: 'grapheme', maxLength: 3 }),
    ),
    {
      maxLength: 40,
    },
  )
  .map((pieces) => pieces.join(''));

const reminder = (body: string, source: string, roleHint = '') => ({
  id: 'r',
  body,
  source,
  roleHint,
});

/** The source attribute of a rendered block: the text between `source="` and the next `"`. */
function attributeOf(block: string): string {
  const start = block.indexOf('source="') + 'source="'.length;
  return block.slice(start, block.indexOf('"', start));
}

/** Reverses the escaping: a left inverse exists only if escaping is one-to-one. */
function unescapeAttribute(value: string): string {
  return value.replace(/&(amp|quot|lt|gt|#x[0-9A-F]+);/g, (_, name: string) => {
    if (name.startsWith('#x')) return String.fromCodePoint(Number.parseInt(name.slice(2), 16));
    return { amp: '&', quot: '"', lt: '<', gt: '>' }[name] ?? '';
  });
}

const RUNS = { numRuns: 300 };

describe('R47: rendering properties', () => {
  it('a block holds exactly one opening and one closing frame, its own', () => {
    fc.assert(
      fc.property(hostileText, hostileText, (body, source) => {
        const block = renderReminderBlock(reminder(body, source));
        expect(framesRead(block)).toEqual(['open', 'close']);
        expect(findFramingTags(block)).toEqual([
          { start: 0, closing: false },
          { start: block.length - '</system-reminder>'.length, closing: true },
        ]);
      }),
      RUNS,
    );
  });

  it('each chat message holds exactly one opening and one closing frame', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(hostileText, hostileText), { maxLength: 4 }), (pairs) => {
        const messages = renderReminderMessages(
          pairs.map(([body, source]) => reminder(body, source, 'developer')),
          { roles: ['system', 'developer', 'user'] },
        );
        for (const m of messages) expect(framesRead(m.content)).toEqual(['open', 'close']);
      }),
      RUNS,
    );
  });

  it('distinct sources render to distinct attributes: escaping has a left inverse', () => {
    fc.assert(
      fc.property(
        fc.oneof(hostileText, fc.string({ unit: 'binary' })),
        fc.oneof(hostileText, fc.string({ unit: 'binary' })),
        (a, b) => {
          fc.pre(a !== '' && b !== '');
          const attrA = attributeOf(renderReminderBlock(reminder('x', a)));
          const attrB = attributeOf(renderReminderBlock(reminder('x', b)));
          expect(unescapeAttribute(attrA)).toBe(a);
          expect(attrA === attrB).toBe(a === b);
          // Nothing in the attribute acts or hides: no quote, control or format character.
          expect(attrA).not.toMatch(/["\p{Cc}\p{Cf}]/u);
        },
      ),
      RUNS,
    );
  });

  it("neutralizing is idempotent and replaces only the code point read as a tag's `<`", () => {
    fc.assert(
      fc.property(hostileText, (body) => {
        const once = neutralizeFraming(body);
        expect(neutralizeFraming(once)).toBe(once);
        expect(findFramingTags(once)).toEqual([]);
        expect(framesRead(once)).toEqual([]);
        let expected = '';
        let from = 0;
        for (const { start } of findFramingTags(body)) {
          expected += `${body.slice(from, start)}&lt;`;
          from = start + String.fromCodePoint(body.codePointAt(start) ?? 0).length;
        }
        expect(once).toBe(expected + body.slice(from));
      }),
      RUNS,
    );
  });
});
