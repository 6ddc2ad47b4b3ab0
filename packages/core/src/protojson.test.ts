import {
  InjectTaskReminderRequestSchema,
  InjectTaskReminderResponseSchema,
  ListTaskRemindersRequestSchema,
} from '@a2a-reminders/proto';
import { create, fromJson } from '@bufbuild/protobuf';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ReminderError } from './errors.js';
import {
  MAX_LIST_VIOLATIONS,
  parseRequestJson,
  readRequestJson,
  toResponseJson,
} from './protojson.js';

function parseError(json: unknown): ReminderError {
  try {
    parseRequestJson(InjectTaskReminderRequestSchema, json);
  } catch (e) {
    if (e instanceof ReminderError) return e;
  }
  throw new Error('expected a ReminderError');
}

describe('ProtoJSON requests', () => {
  it('R8: parses camelCase and snake_case and ignores unknown fields', () => {
    const req = parseRequestJson(InjectTaskReminderRequestSchema, {
      taskId: 't',
      reminder: { id: 'r', body: 'b', ttl_turns: 2, futureField: 1, metadata: { a: [1] } },
      somethingNew: true,
    });
    expect(req.taskId).toBe('t');
    expect(req.reminder?.ttlTurns).toBe(2);
    expect(req.reminder?.metadata).toEqual({ a: [1] });
  });

  it('R8: a wrongly typed field is INVALID_ARGUMENT with its ProtoJSON path', () => {
    const err = parseError({ taskId: 't', reminder: { id: 'r', body: 'b', ttlTurns: 'abc' } });
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.fieldViolations.map((v) => v.field)).toEqual(['reminder.ttlTurns']);
    expect(parseError({ taskId: 5 }).fieldViolations.map((v) => v.field)).toEqual(['taskId']);
    expect(parseError({ taskId: 't', reminder: 'x' }).fieldViolations.map((v) => v.field)).toEqual([
      'reminder',
    ]);
  });

  it('R8: a body that is not an object is INVALID_ARGUMENT', () => {
    for (const bad of [null, [], 'x', 3]) expect(parseError(bad).code).toBe('INVALID_ARGUMENT');
  });

  it('responses are ProtoJSON with defaults omitted', () => {
    const res = create(InjectTaskReminderResponseSchema, { taskState: 'TASK_STATE_WORKING' });
    expect(toResponseJson(InjectTaskReminderResponseSchema, res)).toEqual({
      taskState: 'TASK_STATE_WORKING',
    });
    expect(parseRequestJson(ListTaskRemindersRequestSchema, { taskId: 't' }).taskId).toBe('t');
  });
});

function readInject(json: unknown) {
  return readRequestJson(InjectTaskReminderRequestSchema, json);
}
const fields = (violations: readonly { field: string }[]) => violations.map((v) => v.field);

describe('reading ProtoJSON field by field (R8, R41–R43, R45)', () => {
  it('R8: reports every unreadable value at once and keeps the readable ones', () => {
    const read = readInject({
      taskId: 5,
      reminder: { id: 'r1', body: 7, ttlTurns: 'x', source: 'ok' },
    });
    expect(fields(read.violations)).toEqual(['taskId', 'reminder.body', 'reminder.ttlTurns']);
    expect(read.request.reminder?.id).toBe('r1');
    expect(read.request.reminder?.source).toBe('ok');
    expect(read.request.reminder?.ttlTurns).toBeUndefined();
  });

  it('R59: a repeated message is read element by element, its violations on their own paths', () => {
    const read = readInject({
      taskId: 't',
      reminder: {
        id: 'r1',
        body: 'b',
        provenance: {
          hops: [{ taskId: 'a', reminderId: 'r' }, { taskId: 5, source: 'ok' }, 'x'],
        },
      },
    });
    expect(fields(read.violations)).toEqual([
      'reminder.provenance.hops[1].taskId',
      'reminder.provenance.hops[2]',
    ]);
    // The readable elements and fields are kept.
    expect(read.request.reminder?.provenance?.hops.map((h) => [h.taskId, h.source])).toEqual([
      ['a', ''],
      ['', 'ok'],
    ]);
  });

  it('R59: a long list of bad elements is reported in a bounded number of violations', () => {
    const read = readInject({
      taskId: 't',
      reminder: {
        id: 'r1',
        body: 'b',
        provenance: { hops: Array.from({ length: 30_000 }, () => 1) },
      },
    });
    expect(read.violations).toHaveLength(MAX_LIST_VIOLATIONS + 1);
    expect(read.violations.at(-1)).toEqual({
      field: 'reminder.provenance.hops',
      description: `has ${30_000 - MAX_LIST_VIOLATIONS} more elements, not read: a list reports at most ${MAX_LIST_VIOLATIONS} violations`,
    });
  });

  it('R45: never throws for a value; a non-object request is one violation on its root', () => {
    for (const bad of [null, [], 'x', 3, true]) {
      const read = readRequestJson(InjectTaskReminderRequestSchema, bad, 'params');
      expect(read.violations).toEqual([
        { field: 'params', description: 'must be a JSON object (the ProtoJSON request)' },
      ]);
    }
    expect(fields(readInject({ reminder: [] }).violations)).toEqual(['reminder']);
    expect(fields(readInject({ taskId: 't', task_id: 't' }).violations)).toEqual(['taskId']);
  });

  it('R43: integers are JSON numbers or strings holding one in decimal, nothing else', () => {
    const ttl = (value: unknown) =>
      readInject({ reminder: { id: 'r', body: 'b', ttlTurns: value } });
    for (const [value, expected] of [
      [3, 3],
      ['3', 3],
      ['-2', -2],
      ['1e1', 10],
      ['5.0', 5],
      [null, undefined],
    ] as const) {
      const read = ttl(value);
      expect({ value, violations: read.violations }).toEqual({ value, violations: [] });
      expect(read.request.reminder?.ttlTurns).toBe(expected);
    }
    for (const value of [
      '0x10',
      '0b1',
      '0o7',
      '+5',
      ' 5',
      '5 ',
      '010',
      '',
      'Infinity',
      '1.5',
      1.5,
      3e9,
      true,
    ]) {
      expect({ value, fields: fields(ttl(value).violations) }).toEqual({
        value,
        fields: ['reminder.ttlTurns'],
      });
    }
  });

  it('R8: string values and JSON-number 32-bit integers read exactly as protobuf-es reads them', () => {
    // Field by field, the reader must store what protobuf-es's own reading stores.
    const number = fc.oneof(
      fc.integer({ min: -(2 ** 33), max: 2 ** 33 }),
      fc.double(),
      fc.constantFrom(-0, 0, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), -(2 ** 31) - 1, 2 ** 32),
    );
    // Well-formed Unicode: lone surrogates are refused on purpose (R43), tested below.
    const text = fc.string({ unit: 'grapheme' });
    fc.assert(
      fc.property(text, text, text, number, (taskId, id, body, ttlTurns) => {
        const json = { taskId, reminder: { id, body, ttlTurns, source: body } };
        const read = readRequestJson(InjectTaskReminderRequestSchema, json);
        let reference: unknown;
        try {
          reference = fromJson(InjectTaskReminderRequestSchema, json, {
            ignoreUnknownFields: true,
          });
        } catch {
          reference = undefined;
        }
        if (reference === undefined) {
          expect(fields(read.violations)).toEqual(['reminder.ttlTurns']);
        } else {
          expect(read.violations).toEqual([]);
          expect(read.request).toEqual(reference);
          expect(Object.is(read.request.reminder?.ttlTurns, ttlTurns)).toBe(true);
        }
      }),
    );
  });

  it('R43: a lone surrogate is refused in string fields and anywhere in metadata', () => {
    expect(fields(readInject({ reminder: { id: 'r', body: 'a\uD800b' } }).violations)).toEqual([
      'reminder.body',
    ]);
    expect(fields(readInject({ taskId: '\uDC00' }).violations)).toEqual(['taskId']);
    const inValue = readInject({
      reminder: { id: 'r', body: 'b', metadata: { k: ['ok', 'x\uDBFF'] } },
    });
    expect(fields(inValue.violations)).toEqual(['reminder.metadata.k[1]']);
    const inKey = readInject({
      reminder: { id: 'r', body: 'b', metadata: { a: { 'k\uD800': 1 } } },
    });
    expect(fields(inKey.violations)).toEqual(['reminder.metadata.a["k\\ud800"]']);
    // A surrogate pair is a character like any other.
    expect(
      readInject({ reminder: { id: 'r', body: '😀', metadata: { '😀': '😀' } } }).violations,
    ).toEqual([]);
  });

  it('R41: a non-finite number anywhere in metadata is refused on its path (1e309 parses to Infinity)', () => {
    const json = JSON.parse(
      '{"reminder":{"id":"inf-1","body":"hello","metadata":{"x":1e309,"deep":{"list":[1,-1e309]}}}}',
    );
    const read = readInject(json);
    expect(read.violations).toEqual([
      {
        field: 'reminder.metadata.x',
        description: 'must be a finite number (JSON has no NaN or Infinity)',
      },
    ]);
    expect(read.request.reminder?.metadata).toBeUndefined();
    expect(read.request.reminder?.id).toBe('inf-1');
  });

  it('R42: metadata nested past 32 levels, or past the parser limit, is a violation on reminder.metadata', () => {
    const nest = (levels: number): unknown => {
      let value: unknown = 1;
      for (let i = 1; i < levels; i += 1) value = i % 2 === 0 ? [value] : { a: value };
      return { a: value };
    };
    expect(readInject({ reminder: { id: 'r', body: 'b', metadata: nest(32) } }).violations).toEqual(
      [],
    );
    for (const levels of [33, 98, 200, 20_000]) {
      const read = readInject({ reminder: { id: 'r', body: 'b', metadata: nest(levels) } });
      expect({ levels, violations: read.violations }).toEqual({
        levels,
        violations: [
          {
            field: 'reminder.metadata',
            description: 'must nest at most 32 levels of objects and arrays',
          },
        ],
      });
    }
  });
});
