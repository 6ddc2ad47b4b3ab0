import { renderReminderBlocks, renderReminderMessages } from '@a2a-reminders/core';
import type { JsonObject, JsonValue } from '@bufbuild/protobuf';
import { expect } from 'vitest';
import { advertisedLimit } from '../harness/advertised-limits.js';
import type { Arm } from '../harness/arms.js';
import { recordSummary, reminderError } from '../harness/observe.js';
import type { RawOutcome } from '../harness/raw-call.js';
import { onArm, rawCall } from '../harness/raw-call.js';
import { ACTIVATED_HEADERS } from '../harness/raw-wire.js';
import { verifies } from '../harness/verifies.js';
import type { Wire } from '../harness/wire.js';

// Spec §15, R58–R61: provenance as a field of the reminder, on the arm's
// client and on the raw wire. Forwarding itself is in forwarding.test.ts.

const BINDINGS: readonly Arm[] = ['jsonrpc', 'rest', 'grpc'];

/** A provenance hop (R58), as ProtoJSON and as a message init alike. */
type Hop = { taskId: string; reminderId: string; source: string };

const hop = (taskId: string, reminderId = 'r', source = 'up'): Hop => ({
  taskId,
  reminderId,
  source,
});
const hops = (n: number): Hop[] => Array.from({ length: n }, (_, i) => hop(`up-${i}`));

/** `CODE field,field` of an outcome, or `ok`. */
function verdict(outcome: RawOutcome): string {
  if (outcome.ok) return 'ok';
  return `${outcome.error.code} ${outcome.error.fieldViolations.map((v) => v.field).join(',')}`;
}

/** `CODE field,…` of a typed error the call rejects with, or `accepted`. */
async function rejectionCode(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return 'accepted';
  } catch (error) {
    const typed = error as { code?: string; fieldViolations?: readonly { field: string }[] };
    return `${typed.code} ${(typed.fieldViolations ?? []).map((v) => v.field).join(',')}`;
  }
}

function inject(wire: Wire, request: JsonObject, headers = ACTIVATED_HEADERS) {
  return rawCall(wire, 'InjectTaskReminder', request, headers);
}

/** The task's records as every binding of the stack lists them (ProtoJSON), whatever the arm. */
async function listEverywhere(wire: Wire, taskId: string): Promise<Record<string, JsonValue>> {
  const out: Record<string, JsonValue> = {};
  for (const arm of BINDINGS) {
    const outcome = await rawCall(
      onArm(wire, arm),
      'ListTaskReminders',
      { taskId },
      ACTIVATED_HEADERS,
    );
    out[arm] = outcome.ok ? (outcome.json.reminders ?? []) : verdict(outcome);
  }
  return out;
}

verifies('R58-provenance', async ({ wire }) => {
  const taskId = await wire.tasks.create();
  const provenance = {
    hops: [
      hop('coordinator-task', 'ci-1', 'ci-monitor'),
      // An empty source is a hop's source too (R58: the source "there", possibly empty).
      hop('worker task 7', 'ci.1:a_b-c', ''),
      hop('tâche-🤖', 'ci-1', 'Zürich bot'),
    ],
  };
  const reminder = { id: 'copy', body: 'CI is red', source: 'worker', provenance };
  const answer = await wire.client.injectTaskReminder({ taskId, reminder });
  const sent = provenance.hops.map((h) => [h.taskId, h.reminderId, h.source]);
  const hopsOf = (r: typeof answer.record) =>
    r?.reminder?.provenance?.hops.map((h) => [h.taskId, h.reminderId, h.source]);
  expect(hopsOf(answer.record)).toEqual(sent);
  await wire.client.injectTaskReminder({ taskId, reminder: { id: 'plain', body: 'no hops' } });
  const listed = (await wire.client.listTaskReminders({ taskId })).reminders;
  expect(listed.map(hopsOf)).toEqual([sent, undefined]);
  expect(recordSummary(listed[0])).toEqual(recordSummary(answer.record));

  // Every binding lists it the same, and a reminder without provenance stays without (R44).
  const everywhere = await listEverywhere(wire, taskId);
  expect(everywhere.rest).toEqual(everywhere.jsonrpc);
  expect(everywhere.grpc).toEqual(everywhere.jsonrpc);
  const records = everywhere.jsonrpc as JsonObject[];
  expect(records.map((r) => (r.reminder as JsonObject).provenance)).toEqual([
    {
      hops: [
        { taskId: 'coordinator-task', reminderId: 'ci-1', source: 'ci-monitor' },
        { taskId: 'worker task 7', reminderId: 'ci.1:a_b-c' },
        { taskId: 'tâche-🤖', reminderId: 'ci-1', source: 'Zürich bot' },
      ],
    },
    undefined,
  ]);

  // A turn hands the copy over with its provenance; renderers show its source, never its hops.
  const turn = await wire.tasks.turn(taskId);
  expect(turn.reminders.map((r) => r.provenance?.hops.length ?? 0)).toEqual([3, 0]);
  const rendered = [
    renderReminderBlocks(turn.reminders),
    JSON.stringify(renderReminderMessages(turn.reminders, { roles: ['system'] })),
  ];
  for (const text of rendered) {
    expect(text).toContain('worker');
    for (const shown of ['coordinator-task', 'ci-monitor', 'worker task 7', 'Zürich bot'])
      expect(text).not.toContain(shown);
  }
});

verifies('R59-provenance-validated', async ({ wire }) => {
  const taskId = await wire.tasks.create();
  const base = { id: 'r', body: 'fine' };
  const refused: Array<[string, string[], JsonObject]> = [
    ['no hops', ['reminder.provenance.hops'], { hops: [] }],
    // Present but empty is still a provenance without hops (binary carries the empty message).
    ['empty provenance', ['reminder.provenance.hops'], {}],
    ['blank hop taskId', ['reminder.provenance.hops[0].taskId'], { hops: [hop('  ')] }],
    ['long hop taskId', ['reminder.provenance.hops[0].taskId'], { hops: [hop('t'.repeat(257))] }],
    ['ESC in hop taskId', ['reminder.provenance.hops[0].taskId'], { hops: [hop('t\u001b[2J')] }],
    [
      'malformed hop reminderId',
      ['reminder.provenance.hops[1].reminderId'],
      { hops: [hop('a'), hop('b', 'has space')] },
    ],
    ['empty hop reminderId', ['reminder.provenance.hops[0].reminderId'], { hops: [hop('a', '')] }],
    [
      'long hop source',
      ['reminder.provenance.hops[0].source'],
      { hops: [hop('a', 'r', 's'.repeat(257))] },
    ],
    [
      'zero-width space in hop source',
      ['reminder.provenance.hops[0].source'],
      { hops: [hop('a', 'r', 'ci\u200bbot')] },
    ],
    [
      'every hop field at once',
      [
        'reminder.provenance.hops[0].reminderId',
        'reminder.provenance.hops[0].source',
        'reminder.provenance.hops[0].taskId',
      ],
      { hops: [{ taskId: '', reminderId: 'no/slash', source: 's\u0007' }] },
    ],
  ];
  for (const [name, fields, provenance] of refused) {
    const outcome = await inject(wire, { taskId, reminder: { ...base, provenance } });
    const got = outcome.ok
      ? 'accepted'
      : `${outcome.error.code} ${outcome.error.fieldViolations
          .map((v) => v.field)
          .sort()
          .join(',')}`;
    expect({ name, got }).toEqual({ name, got: `INVALID_ARGUMENT ${fields.join(',')}` });
  }
  // Reported with the request's other violations (R8), and before R61: a hop naming this
  // task does not hide what is invalid.
  const together = await reminderError(
    wire.client.injectTaskReminder({
      taskId,
      reminder: { id: 'r', body: ' ', provenance: { hops: [hop(taskId), hop('a', 'bad id')] } },
    }),
    'INVALID_ARGUMENT',
  );
  expect(together.fieldViolations.map((v) => v.field).sort()).toEqual([
    'reminder.body',
    'reminder.provenance.hops[1].reminderId',
  ]);
  // Past the hop limit the hops are not checked one by one (R59): the request's other
  // violations still come first, and then R60 answers in one violation, however long the list.
  const pastLimit = [
    ...hops(advertisedLimit(wire.card, 'maxForwardHops') + 1),
    hop(taskId, 'bad id'),
  ];
  const bodyFirst = await reminderError(
    wire.client.injectTaskReminder({
      taskId,
      reminder: { id: 'r', body: ' ', provenance: { hops: pastLimit } },
    }),
    'INVALID_ARGUMENT',
  );
  expect(bodyFirst.fieldViolations.map((v) => v.field)).toEqual(['reminder.body']);
  const long = Array.from({ length: 1000 }, () => hop('', ''));
  const limited = await reminderError(
    wire.client.injectTaskReminder({
      taskId,
      reminder: { id: 'r', body: 'b', provenance: { hops: long } },
    }),
    'FORWARD_HOP_LIMIT_EXCEEDED',
  );
  expect(limited.fieldViolations.map((v) => v.field)).toEqual(['reminder.provenance.hops']);
  // Nothing refused was stored (R44).
  expect((await wire.client.listTaskReminders({ taskId })).reminders).toEqual([]);

  // Provenance is content: the same provenance re-sends idempotently (R13), any other conflicts (R14).
  const provenance = { hops: [hop('p', 'r1', 'coordinator')] };
  const first = await wire.client.injectTaskReminder({
    taskId,
    reminder: { ...base, id: 'copy', provenance },
  });
  const again = await wire.client.injectTaskReminder({
    taskId,
    reminder: { ...base, id: 'copy', provenance: { hops: [hop('p', 'r1', 'coordinator')] } },
  });
  expect(recordSummary(again.record)).toEqual(recordSummary(first.record));
  await wire.client.injectTaskReminder({ taskId, reminder: { ...base, id: 'plain' } });
  const conflicts: Array<[string, string, object | undefined]> = [
    ['another hop task', 'copy', { hops: [hop('q', 'r1', 'coordinator')] }],
    ['another hop reminder', 'copy', { hops: [hop('p', 'r2', 'coordinator')] }],
    ['another hop source', 'copy', { hops: [hop('p', 'r1', '')] }],
    ['a hop more', 'copy', { hops: [hop('p', 'r1', 'coordinator'), hop('p2')] }],
    ['no provenance', 'copy', undefined],
    ['provenance added', 'plain', { hops: [hop('p')] }],
  ];
  for (const [name, id, changed] of conflicts) {
    const reminder = changed === undefined ? { ...base, id } : { ...base, id, provenance: changed };
    const outcome = await rejectionCode(wire.client.injectTaskReminder({ taskId, reminder }));
    expect({ name, outcome }).toEqual({ name, outcome: 'REMINDER_ID_CONFLICT reminder.id' });
  }
  const listed = (await wire.client.listTaskReminders({ taskId })).reminders;
  expect(listed.map((r) => [r.reminder?.id, r.reminder?.provenance?.hops.length])).toEqual([
    ['copy', 1],
    ['plain', undefined],
  ]);
});

/** The extension ErrorInfo of a refused outcome, as the binding sent it (R40). */
function errorInfoOf(outcome: RawOutcome): JsonObject | undefined {
  if (outcome.ok) return undefined;
  return outcome.wire.details.find((d) =>
    String((d as JsonObject)['@type']).endsWith('google.rpc.ErrorInfo'),
  ) as JsonObject | undefined;
}

verifies(
  'R60-forward-hop-limit',
  async ({ wire }) => {
    // The agent's own limit (R2): 2 in process, whatever the agent under test advertises in the kit.
    const limit = advertisedLimit(await wire.sdk.getAgentCard(), 'maxForwardHops');
    const past = String(limit + 1);
    const taskId = await wire.tasks.create();
    const refused = await inject(wire, {
      taskId,
      reminder: { id: 'deep', body: 'b', provenance: { hops: hops(limit + 1) } },
    });
    expect(verdict(refused)).toBe('FORWARD_HOP_LIMIT_EXCEEDED reminder.provenance.hops');
    if (!refused.ok)
      expect(refused.error.metadata).toEqual({ taskId, hops: past, limit: String(limit) });
    // The metadata is on the wire in the extension's ErrorInfo, not only rebuilt by the client.
    expect(errorInfoOf(refused)).toMatchObject({
      reason: 'FORWARD_HOP_LIMIT_EXCEEDED',
      domain: 'a2a-reminders.dev',
      metadata: { taskId, hops: past, limit: String(limit) },
    });
    // Our client rebuilds the same typed error.
    const typed = await reminderError(
      wire.client.injectTaskReminder({
        taskId,
        reminder: { id: 'deep', body: 'b', provenance: { hops: hops(limit + 1) } },
      }),
      'FORWARD_HOP_LIMIT_EXCEEDED',
    );
    expect([typed.metadata, typed.fieldViolations.map((v) => v.field)]).toEqual([
      { taskId, hops: past, limit: String(limit) },
      ['reminder.provenance.hops'],
    ]);

    // R5: after validation, before the task lookup and the task's state.
    const invalid = await inject(wire, {
      taskId: 'no-such-task',
      reminder: { id: 'deep', body: '', provenance: { hops: hops(limit + 1) } },
    });
    expect(verdict(invalid)).toBe('INVALID_ARGUMENT reminder.body');
    const unknown = await inject(wire, {
      taskId: 'no-such-task',
      reminder: { id: 'deep', body: 'b', provenance: { hops: hops(limit + 1) } },
    });
    expect(verdict(unknown)).toBe('FORWARD_HOP_LIMIT_EXCEEDED reminder.provenance.hops');
    if (!unknown.ok) expect(unknown.error.metadata.taskId).toBe('no-such-task');
    const ended = await wire.tasks.create();
    await wire.tasks.end(ended, 'COMPLETED');
    const terminal = await inject(wire, {
      taskId: ended,
      reminder: { id: 'deep', body: 'b', provenance: { hops: hops(limit + 1) } },
    });
    expect(verdict(terminal)).toBe('FORWARD_HOP_LIMIT_EXCEEDED reminder.provenance.hops');
    // Activation still comes first (R3).
    const unactivated = await inject(
      wire,
      { taskId, reminder: { id: 'deep', body: 'b', provenance: { hops: hops(limit + 1) } } },
      { 'A2A-Version': '1.0' },
    );
    expect(verdict(unactivated)).toBe('EXTENSION_NOT_ACTIVATED ');

    // Exactly the limit is accepted; nothing refused was stored.
    const edge = await wire.client.injectTaskReminder({
      taskId,
      reminder: { id: 'edge', body: 'b', provenance: { hops: hops(limit) } },
    });
    expect(edge.record?.reminder?.provenance?.hops).toHaveLength(limit);
    const listed = (await wire.client.listTaskReminders({ taskId })).reminders;
    expect(listed.map((r) => r.reminder?.id)).toEqual(['edge']);
  },
  { stack: { limits: { maxForwardHops: 2 } }, advertisedLimits: true },
);

verifies(
  'R60-forward-hop-limit',
  async ({ wire }) => {
    const card = await wire.sdk.getAgentCard();
    expect(card.capabilities?.extensions.at(-1)?.params).toMatchObject({ maxForwardHops: 0 });
    const taskId = await wire.tasks.create();
    const copy = await inject(wire, {
      taskId,
      reminder: { id: 'copy', body: 'b', provenance: { hops: hops(1) } },
    });
    expect(verdict(copy)).toBe('FORWARD_HOP_LIMIT_EXCEEDED reminder.provenance.hops');
    if (!copy.ok) expect(copy.error.metadata).toEqual({ taskId, hops: '1', limit: '0' });
    // A reminder that was not forwarded is still taken.
    await wire.client.injectTaskReminder({ taskId, reminder: { id: 'own', body: 'b' } });
    const listed = (await wire.client.listTaskReminders({ taskId })).reminders;
    expect(listed.map((r) => r.reminder?.id)).toEqual(['own']);
  },
  { variant: 'a limit of 0', stack: { limits: { maxForwardHops: 0 } } },
);

verifies(
  'R61-forward-loop',
  async ({ wire }) => {
    const taskId = await wire.tasks.create();
    // Four hops, within the default limit (R60): the loop is what is refused.
    const loop = await inject(wire, {
      taskId,
      reminder: {
        id: 'loop',
        body: 'b',
        provenance: { hops: [hop('elsewhere'), hop(taskId), hop('other'), hop(taskId)] },
      },
    });
    // The first hop naming the task is reported.
    expect(verdict(loop)).toBe('FORWARD_LOOP reminder.provenance.hops[1].taskId');
    if (!loop.ok) expect(loop.error.metadata).toEqual({ taskId, hop: '1' });
    expect(errorInfoOf(loop)).toMatchObject({
      reason: 'FORWARD_LOOP',
      domain: 'a2a-reminders.dev',
      metadata: { taskId, hop: '1' },
    });
    const typed = await reminderError(
      wire.client.injectTaskReminder({
        taskId,
        reminder: { id: 'loop', body: 'b', provenance: { hops: [hop(taskId)] } },
      }),
      'FORWARD_LOOP',
    );
    expect([typed.metadata, typed.fieldViolations.map((v) => v.field)]).toEqual([
      { taskId, hop: '0' },
      ['reminder.provenance.hops[0].taskId'],
    ]);

    // R5: before the task lookup, after validation, and after R60.
    const unknown = await inject(wire, {
      taskId: 'no-such-task',
      reminder: { id: 'loop', body: 'b', provenance: { hops: [hop('no-such-task')] } },
    });
    expect(verdict(unknown)).toBe('FORWARD_LOOP reminder.provenance.hops[0].taskId');
    const invalid = await inject(wire, {
      taskId,
      reminder: { id: 'loop', body: '', provenance: { hops: [hop(taskId)] } },
    });
    expect(verdict(invalid)).toBe('INVALID_ARGUMENT reminder.body');
    const tooDeep = await inject(wire, {
      taskId,
      reminder: { id: 'loop', body: 'b', provenance: { hops: [hop(taskId), ...hops(4)] } },
    });
    expect(verdict(tooDeep)).toBe('FORWARD_HOP_LIMIT_EXCEEDED reminder.provenance.hops');

    // Only this task's own id is a loop: a hop naming another task (or a reminder of this id) is not.
    const other = await wire.tasks.create();
    const passed = await wire.client.injectTaskReminder({
      taskId,
      reminder: { id: 'loop', body: 'b', provenance: { hops: [hop(other, 'loop')] } },
    });
    expect(passed.record?.reminder?.provenance?.hops.map((h) => h.taskId)).toEqual([other]);
    const listed = (await wire.client.listTaskReminders({ taskId })).reminders;
    expect(listed.map((r) => r.reminder?.id)).toEqual(['loop']);
  },
  // Its loops are four hops long: an agent with a lower limit refuses them as too deep (R60).
  { stack: { limits: { maxForwardHops: 4 } } },
);

verifies(
  'R43-protojson-strictness',
  async ({ wire }) => {
    const taskId = await wire.tasks.create();
    // A lone surrogate in a hop's string is a violation on that string's path, as in every
    // string field, read from JSON or sent by our client on the arm.
    const provenance = { hops: [hop('a'), hop('b', 'r', 'x\ud800')] };
    const raw = await inject(wire, { taskId, reminder: { id: 'r', body: 'b', provenance } });
    const typed = await rejectionCode(
      wire.client.injectTaskReminder({ taskId, reminder: { id: 'r', body: 'b', provenance } }),
    );
    expect([verdict(raw), typed]).toEqual([
      'INVALID_ARGUMENT reminder.provenance.hops[1].source',
      'INVALID_ARGUMENT reminder.provenance.hops[1].source',
    ]);
    // The spec fixes the field, not the wording (core's own tests hold its text).
    if (!raw.ok) expect(raw.error.fieldViolations[0]?.description).toMatch(/\S/);
    expect((await wire.client.listTaskReminders({ taskId })).reminders).toEqual([]);
  },
  { variant: 'provenance hops' },
);
