import {
  InjectTaskReminderRequestSchema,
  InjectTaskReminderResponseSchema,
  ListTaskRemindersRequestSchema,
} from '@a2a-reminders/proto';
import { create } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { ReminderError } from './errors.js';
import { parseRequestJson, toResponseJson } from './protojson.js';

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
