import type { JsonObject, JsonValue } from '@bufbuild/protobuf';

// What the W8 script (equivalence-script.ts) must observe, written step by
// step from the spec's rules, not recorded from the implementation: the
// reference the direct arm is checked against, so that W8's direct case can
// fail (the wire arms are compared with a live direct run). Error messages
// and violation descriptions are the implementation's wording, not the
// spec's, so `specView` leaves them out on both sides.

type Fields = Record<string, JsonValue>;

const TASK = '{task}';
const a = { id: 'a', body: 'body of a', dedupeKey: 'k', ttlTurns: 2, metadata: { n: 1 } };
const b = {
  id: 'b',
  body: 'body of b',
  dedupeKey: 'k',
  ttlTurns: 1, // R9: unset means 1; records carry the effective value
  roleHint: 'system',
  source: 'monitor',
};
const c = { id: 'c', body: 'body of c', ttlTurns: 3 };
const d = { id: 'd', body: 'body of d', ttlTurns: 2 };
const e = { id: 'e', body: 'body of e', ttlTurns: 1 };

/** R34: a record as `recordSummary` shows it (ProtoJSON omits zero values). */
function record(reminder: Fields, state: string, fields: Fields = {}): JsonObject {
  const final = !['PENDING', 'ACTIVE'].includes(state);
  return {
    taskId: TASK,
    reminder,
    state: `REMINDER_STATE_${state}`,
    ...fields,
    hasCreateTime: true,
    hasEndTime: final,
  };
}

/** R13, R16: the answer accepting a reminder: PENDING with every turn to come. */
function accepted(reminder: Fields & { ttlTurns: number }, displaced: string[] = []) {
  return {
    ok: {
      record: record(reminder, 'PENDING', { turnsRemaining: reminder.ttlTurns }),
      displaced,
      taskState: 'TASK_STATE_WORKING',
    },
  };
}

function refused(code: string, metadata: Fields, fields: string[] = []) {
  return { error: { code, metadata, fields } };
}

export const W8_TRANSCRIPT: readonly JsonValue[] = [
  { name: 'inject a', ...accepted(a) },
  // R13: an identical re-send returns the original answer.
  { name: 're-send a', ...accepted(a) },
  // R14: different content under a used id.
  {
    name: 'conflict a',
    ...refused('REMINDER_ID_CONFLICT', { taskId: TASK, reminderId: 'a' }, ['reminder.id']),
  },
  // R15, R16: same dedupe key, so b displaces live a.
  { name: 'inject b displaces a', ...accepted(b, ['a']) },
  // R8, R9: every violation at once, with its ProtoJSON path.
  {
    name: 'invalid',
    ...refused('INVALID_ARGUMENT', {}, ['reminder.id', 'reminder.body', 'reminder.ttlTurns']),
  },
  { name: 'inject c', ...accepted(c) },
  // R19–R21: acceptance order; turnsRemaining after this turn; first surfacing.
  { name: 'turn 1', ok: { turn: 1, reminders: ['b:0:true', 'c:2:true'] } },
  // R23: cancelled after one surfacing; turnsRemaining 0 once final (R34).
  { name: 'cancel c', ok: record(c, 'CANCELLED', { firstTurn: 1 }) },
  // R24: cancelling again returns the record unchanged.
  { name: 'cancel c again', ok: record(c, 'CANCELLED', { firstTurn: 1 }) },
  // R25.
  {
    name: 'cancel a (displaced)',
    ...refused('REMINDER_NOT_LIVE', {
      taskId: TASK,
      reminderId: 'a',
      reminderState: 'REMINDER_STATE_DISPLACED',
    }),
  },
  // R26.
  { name: 'cancel unknown', ...refused('REMINDER_NOT_FOUND', { taskId: TASK, reminderId: 'zzz' }) },
  { name: 'inject d', ...accepted(d) },
  // R22: b used its one turn and leaves now; d is new.
  { name: 'turn 2', ok: { turn: 2, reminders: ['d:1:true'] } },
  { name: 'turn 3', ok: { turn: 3, reminders: ['d:0:false'] } },
  { name: 'inject e', ...accepted(e) },
  // R34: every record in acceptance order; d is ACTIVE with 0 turns left (R22).
  {
    name: 'list',
    ok: [
      record(a, 'DISPLACED', { displacedBy: 'b' }),
      record(b, 'EXPIRED', { firstTurn: 1 }),
      record(c, 'CANCELLED', { firstTurn: 1 }),
      record(d, 'ACTIVE', { firstTurn: 2 }),
      record(e, 'PENDING', { turnsRemaining: 1 }),
    ],
  },
  // The task ends COMPLETED here. R12: refused after the end.
  {
    name: 'inject after end',
    ...refused('TASK_TERMINAL', { taskId: TASK, taskState: 'TASK_STATE_COMPLETED' }),
  },
  // R13: a re-send still returns the original answer after the end.
  { name: 're-send a after end', ...accepted(a) },
  // R27: d (surfaced) EXPIRED, e (never surfaced) DROPPED.
  {
    name: 'list after end',
    ok: [
      record(a, 'DISPLACED', { displacedBy: 'b' }),
      record(b, 'EXPIRED', { firstTurn: 1 }),
      record(c, 'CANCELLED', { firstTurn: 1 }),
      record(d, 'EXPIRED', { firstTurn: 2 }),
      record(e, 'DROPPED'),
    ],
  },
  // R16, R21–R23, R27: one batch per inject, boundary, cancel and task end;
  // turn 3 emits nothing (d's second surfacing); zero fields omitted.
  {
    name: 'events',
    ok: [
      ['displaced:a#k {"displacedBy":"b"}'],
      ['emitted:b#k {"turn":1}', 'emitted:c {"turn":1,"turnsRemaining":2}'],
      ['cancelled:c {"turnsSurfaced":1}'],
      ['expired:b#k {"lastTurn":1,"turnsSurfaced":1}', 'emitted:d {"turn":2,"turnsRemaining":1}'],
      [
        'expired:d {"lastTurn":3,"turnsSurfaced":2}',
        'dropped:e {"taskState":"TASK_STATE_COMPLETED"}',
      ],
    ],
  },
];

/**
 * A transcript without the implementation's wording: each error keeps its
 * code, metadata and the paths of its field violations.
 */
export function specView(transcript: readonly JsonValue[]): JsonValue[] {
  return transcript.map((step) => {
    const s = step as JsonObject;
    const error = s.error as JsonObject | undefined;
    if (error === undefined || 'fields' in error) return step;
    const violations = (error.fieldViolations ?? []) as JsonObject[];
    return {
      ...s,
      error: {
        code: error.code ?? null,
        metadata: error.metadata ?? {},
        fields: violations.map((v) => v.field ?? null),
      },
    };
  });
}
