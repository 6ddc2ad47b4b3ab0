import {
  CancelTaskReminderRequestSchema,
  InjectTaskReminderRequestSchema,
  ListTaskRemindersRequestSchema,
} from '@a2a-reminders/proto';
import { create } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { defaultReminderLimits } from './limits.js';
import { refusedCharacters } from './text-rules.js';
import { cancelViolations, injectViolations, listViolations } from './validation.js';

const inject = (reminder: Record<string, string>, extra: Record<string, string> = {}) =>
  injectViolations(
    create(InjectTaskReminderRequestSchema, {
      taskId: 't1',
      ...extra,
      reminder: { id: 'r1', body: 'fine', ...reminder },
    }),
    defaultReminderLimits,
  );

const fields = (violations: readonly { field: string }[]) => violations.map((v) => v.field).sort();

/** Characters a short field refuses (R46), with why a caller could be tempted to send them. */
const REFUSED_IN_NAMES: ReadonlyArray<[string, string]> = [
  ['\u001b', 'ESC, starts a terminal escape sequence'],
  ['\n', 'newline, forges a second log line'],
  ['\t', 'tab'],
  ['\r', 'carriage return, overwrites the line'],
  ['\u0085', 'NEL, a C1 control'],
  ['\u007f', 'DEL'],
  ['\u202e', 'right-to-left override'],
  ['\u2066', 'left-to-right isolate'],
  ['\u200f', 'right-to-left mark'],
  ['\u061c', 'Arabic letter mark'],
  ['\u200b', 'zero-width space'],
  ['\u200d', 'zero-width joiner'],
  ['\u2060', 'word joiner'],
  ['\u2063', 'invisible separator'],
  ['\ufeff', 'byte order mark'],
  ['\u00ad', 'soft hyphen'],
  ['\ufe0f', 'variation selector 16'],
  ['\u{e0100}', 'variation selector 17'],
  ['\u034f', 'combining grapheme joiner'],
  ['\u3164', 'Hangul filler'],
  ['\u{e0041}', 'tag letter A'],
  ['\ufff9', 'interlinear annotation anchor'],
  ['\u2028', 'line separator'],
  ['\u2029', 'paragraph separator'],
];

/** Characters the body refuses beyond R9's controls (R46): bidi controls and hidden text. */
const REFUSED_IN_BODY: ReadonlyArray<[string, string]> = [
  ['\u202e', 'right-to-left override'],
  ['\u202a', 'left-to-right embedding'],
  ['\u2069', 'pop directional isolate'],
  ['\u200e', 'left-to-right mark'],
  ['\u061c', 'Arabic letter mark'],
  ['\u{e0001}', 'language tag'],
  ['\u{e0073}', 'tag letter s'],
  ['\u{e007f}', 'cancel tag'],
  ['\ufffb', 'interlinear annotation terminator'],
  ['\u206a', 'inhibit symmetric swapping (deprecated)'],
];

describe('R46: text fields', () => {
  for (const field of ['source', 'dedupeKey', 'roleHint'] as const) {
    for (const [char, why] of REFUSED_IN_NAMES) {
      it(`reminder.${field} refuses ${why}`, () => {
        const violations = inject({ [field]: `a${char}b` });
        expect(fields(violations)).toEqual([`reminder.${field}`]);
        const cp = char.codePointAt(0)?.toString(16).toUpperCase().padStart(4, '0');
        expect(violations[0]?.description).toContain(`U+${cp} at offset 1`);
      });
    }
  }

  for (const [char, why] of REFUSED_IN_BODY) {
    it(`reminder.body refuses ${why}`, () => {
      expect(fields(inject({ body: `ok ${char} tail` }))).toEqual(['reminder.body']);
    });
  }

  it('reminder.body keeps newline, tab and the invisibles real text needs', () => {
    for (const body of [
      'line one\nline two\twith a tab',
      'coder: 👩\u200d💻 and family 👨\u200d👩\u200d👧', // ZWJ emoji sequences
      'heart ❤\ufe0f', // emoji presentation selector
      'می\u200cخواهم', // ZWNJ in Persian
      'hyphen\u00adation and zero\u200bwidth space',
      'عربى ١٢٣ and עברית', // right-to-left scripts need no controls
    ]) {
      expect(inject({ body })).toEqual([]);
    }
  });

  it('short fields accept visible non-ASCII text and spaces', () => {
    expect(
      inject({ source: 'ci-bot 🤖 (Zürich)', dedupeKey: 'κλειδί:1', roleHint: 'développeur' }),
    ).toEqual([]);
  });

  it('taskId, tenant and reminderId refuse what names refuse, on every rpc', () => {
    expect(fields(inject({}, { taskId: 't\u001b[2J', tenant: 'acme\u202e' }))).toEqual([
      'taskId',
      'tenant',
    ]);
    expect(
      fields(
        listViolations(
          create(ListTaskRemindersRequestSchema, { taskId: 't\n1', tenant: 'a\u200bcme' }),
        ),
      ),
    ).toEqual(['taskId', 'tenant']);
    expect(
      fields(
        cancelViolations(
          create(CancelTaskReminderRequestSchema, {
            taskId: 't1',
            reminderId: 'r\u0007',
            tenant: 'x\u0000',
          }),
        ),
      ),
    ).toEqual(['reminderId', 'tenant']);
  });

  it('every violation at once, each with its path, never echoing the character', () => {
    const violations = inject({
      body: 'esc\u001b[31mRED \u202e',
      source: 'esc\u001b[31mRED',
      dedupeKey: 'k\u200b',
      roleHint: 'sys\ntem',
    });
    expect(fields(violations)).toEqual([
      'reminder.body',
      'reminder.body',
      'reminder.dedupeKey',
      'reminder.roleHint',
      'reminder.source',
    ]);
    for (const v of violations) expect(v.description).toMatch(/^[\x20-\x7e]+$/);
    expect(violations.find((v) => v.field === 'reminder.source')?.description).toBe(
      'must not contain control characters (U+001B at offset 3)',
    );
  });

  it('one description per class of refused character, naming the first of each', () => {
    expect(refusedCharacters('a\u200bb\u0007c\u0008', 'name')).toEqual([
      'must not contain control characters (U+0007 at offset 3)',
      'must not contain invisible or format characters (Unicode Cf, default-ignorable code points, line or paragraph separators) (U+200B at offset 1)',
    ]);
    expect(refusedCharacters('x\u{e0041}', 'text')).toEqual([
      'must not contain hidden-text characters (tag characters, interlinear annotation, deprecated format characters) (U+E0041 at offset 1)',
    ]);
  });
});
