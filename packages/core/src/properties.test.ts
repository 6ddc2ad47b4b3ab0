import { TaskState } from '@a2a-js/sdk';
import type { RequestContext } from '@a2a-js/sdk/server';
import type { TaskReminderRecord } from '@a2a-reminders/proto';
import {
  InjectTaskReminderResponseSchema,
  ListTaskRemindersRequestSchema,
  TaskReminderEventSchema,
  TaskReminderRecordSchema,
} from '@a2a-reminders/proto';
import type { JsonObject } from '@bufbuild/protobuf';
import { create, fromBinary, fromJson, toBinary, toJson } from '@bufbuild/protobuf';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ReminderError } from './errors.js';
import type { Harness } from './testing/harness.js';
import { harness } from './testing/harness.js';
import {
  expectedEvent,
  expectedInjectResponse,
  expectedRecord,
} from './testing/model-expectations.js';
import type {
  ModelContent,
  ModelErrorCode,
  ModelEvent,
  ModelLimits,
  ModelRecord,
  ModelResult,
} from './testing/reminder-model.js';
import { isLive, ReminderModel } from './testing/reminder-model.js';

// Model-based property test (issue 8 §7): random command sequences run on a
// reference model written from the spec (testing/reminder-model.ts) and on
// the real service; after every command the answer (or the refusal's code),
// the event batches published on every task and the commanded task's whole
// listing (paged, R49) must be exactly what the model says, and every task's
// listing at the end of a run. On top of the step-by-step comparison it
// checks, from observations alone: never lost (a reminder leaves the listing
// only as a final record purged by the cap, R48), surfacing on consecutive
// turns (R20: exactly the turns a+1 … min(a+ttl, end), counted from its
// acceptance turn a, each seen in a real turn's answer), idempotent replay of
// every retained record (R13), and that every listed record round-trips
// through ProtoJSON and binary (R44).

const TASKS = ['t0', 't1'] as const;
const WORKING = 'TASK_STATE_WORKING';
const END_STATES = [
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
] as const;
const END_STATE_NAMES: Record<(typeof END_STATES)[number], string> = {
  [TaskState.TASK_STATE_COMPLETED]: 'TASK_STATE_COMPLETED',
  [TaskState.TASK_STATE_FAILED]: 'TASK_STATE_FAILED',
  [TaskState.TASK_STATE_CANCELED]: 'TASK_STATE_CANCELED',
  [TaskState.TASK_STATE_REJECTED]: 'TASK_STATE_REJECTED',
};

/** Small limits, so that quota refusals (R17) and cap purges (R48) happen often. */
const LIMITS: ModelLimits = { maxLive: 2, maxFinal: 2 };

/** Everything the real side keeps between commands. */
interface Real {
  readonly h: Harness;
  readonly tasks: Map<string, { sink: ReturnType<Harness['openBus']>; rc: RequestContext }>;
  /** Batches already compared, per task. */
  readonly batchesSeen: Map<string, number>;
  /** Observed turns each accepted reminder (by model instance) was surfaced on. */
  readonly surfacedOn: Map<number, number[]>;
  /** Every reminder instance ever accepted, with its task. */
  readonly accepted: Map<number, { taskId: string; record: ModelRecord }>;
  /** The task's turn when an instance reached its final state. */
  readonly endTurn: Map<number, number>;
}

interface Model {
  readonly m: ReminderModel;
}

function realOf(h: Harness): Real {
  return {
    h,
    tasks: new Map(),
    batchesSeen: new Map(),
    surfacedOn: new Map(),
    accepted: new Map(),
    endTurn: new Map(),
  };
}

/** The content an id usually carries, so that identical re-sends (R13) are common. */
function contentOf(id: number, tweak: number, ordering: boolean, explicitTtl: boolean) {
  const ttls = [undefined, 1, 2, 3] as const;
  let ttl: number | undefined = ttls[id % 4];
  // R13: ttl compares by its effective value, so unset and 1 are the same content.
  if (explicitTtl && ttl === undefined) ttl = 1;
  else if (explicitTtl && ttl === 1) ttl = undefined;
  const metadata: JsonObject | undefined =
    id % 3 === 0
      ? undefined
      : ordering
        ? { a: id, nested: { x: [1, 'two', null], y: true } }
        : { nested: { y: true, x: [1, 'two', null] }, a: id };
  const content: ModelContent = {
    id: `r${id}`,
    body: `body of r${id}`,
    dedupeKey: ['', 'k1', 'k2'][id % 3] ?? '',
    ttlTurns: ttl,
    metadata,
  };
  // A few sends change one field: R14 conflicts.
  if (tweak === 1) return { ...content, body: `${content.body}, changed` };
  if (tweak === 2) return { ...content, ttlTurns: (content.ttlTurns ?? 1) + 1 };
  if (tweak === 3) return { ...content, dedupeKey: `${content.dedupeKey}x` };
  return content;
}

function injectRequestOf(content: ModelContent) {
  return {
    id: content.id,
    body: content.body,
    dedupeKey: content.dedupeKey,
    ...(content.ttlTurns === undefined ? {} : { ttlTurns: content.ttlTurns }),
    ...(content.metadata === undefined ? {} : { metadata: content.metadata }),
  };
}

interface ListOptions {
  readonly pageSize?: number;
  readonly liveOnly?: boolean;
}

/** Every page of the task's listing (R49), checking each page's bounds on the way. */
async function listAll(
  h: Harness,
  taskId: string,
  options: ListOptions = {},
): Promise<TaskReminderRecord[]> {
  const records: TaskReminderRecord[] = [];
  let pageToken = '';
  for (let page = 0; page < 1000; page += 1) {
    const response = await h.service.listTaskReminders(
      create(ListTaskRemindersRequestSchema, { taskId, pageToken, ...options }),
      h.ctx,
    );
    expect(response.reminders.length).toBeLessThanOrEqual(options.pageSize ?? 50);
    // A page that promises more is never empty, so following tokens always ends.
    if (response.nextPageToken !== '') expect(response.reminders.length).toBeGreaterThan(0);
    records.push(...response.reminders);
    if (response.nextPageToken === '') return records;
    pageToken = response.nextPageToken;
  }
  throw new Error('listing did not end after 1000 pages');
}

/** Runs a real call that the model says fails with `code`, or succeeds. */
async function outcomeOf<T>(call: () => Promise<T>): Promise<{ ok: T } | { error: ReminderError }> {
  try {
    return { ok: await call() };
  } catch (error) {
    if (error instanceof ReminderError) return { error };
    throw error;
  }
}

function expectSameOutcome<T, U>(
  what: string,
  expected: ModelResult<T>,
  actual: { ok: U } | { error: ReminderError },
): actual is { ok: U } {
  if ('error' in expected) {
    const got = 'error' in actual ? actual.error.code : 'success';
    expect(got, `${what}: expected ${expected.error}`).toBe<ModelErrorCode | string>(
      expected.error,
    );
    return false;
  }
  if ('error' in actual) {
    throw new Error(`${what}: expected success, got ${actual.error.code} ${actual.error.message}`);
  }
  return true;
}

/** The task's listing equals the model's, and every record round-trips (R44). */
async function checkListing(
  model: Model,
  real: Real,
  taskId: string,
  options: ListOptions = {},
): Promise<void> {
  const listed = await listAll(real.h, taskId, options);
  const records = model.m
    .task(taskId)
    .records.filter((r) => options.liveOnly !== true || isLive(r.state));
  expect(
    listed.map((r) => toJson(TaskReminderRecordSchema, r)),
    `listing of ${taskId}`,
  ).toEqual(records.map((r) => expectedRecord(taskId, r)));
  for (const record of listed) {
    const json = toJson(TaskReminderRecordSchema, record);
    const viaJson = fromJson(TaskReminderRecordSchema, json);
    const viaBinary = fromBinary(
      TaskReminderRecordSchema,
      toBinary(TaskReminderRecordSchema, record),
    );
    expect(toJson(TaskReminderRecordSchema, viaJson)).toEqual(json);
    expect(toJson(TaskReminderRecordSchema, viaBinary)).toEqual(json);
  }
}

/**
 * After every command: the commanded task's listing is exactly the model's;
 * the batches published since the last check are exactly `events` (on
 * `taskId`) and none on any other task; and the observation checks of
 * R13/R20/R48 hold for every reminder ever accepted.
 */
async function checkAll(
  model: Model,
  real: Real,
  taskId: string,
  events: readonly ModelEvent[],
  nowMs: number,
  options: ListOptions = {},
): Promise<void> {
  await checkListing(model, real, taskId, options);
  for (const t of TASKS) {
    const batches = real.tasks.get(t)?.sink.batches() ?? [];
    const seen = real.batchesSeen.get(t) ?? 0;
    const fresh = batches.slice(seen).map((b) => b.map((e) => toJson(TaskReminderEventSchema, e)));
    real.batchesSeen.set(t, batches.length);
    const expected =
      t === taskId && events.length > 0 ? [events.map((e) => expectedEvent(e, nowMs))] : [];
    // R16, R22, R27: the events of one operation form one batch.
    expect(fresh, `event batches of ${t}`).toEqual(expected);
  }
  for (const [instance, { taskId: t, record }] of real.accepted) {
    const task = model.m.task(t);
    if (!isLive(record.state) && !real.endTurn.has(instance)) real.endTurn.set(instance, task.turn);
    // Never lost: a record leaves the listing only as a final one (R48), never live.
    if (!task.records.includes(record)) {
      expect(isLive(record.state), `${record.content.id} purged while live`).toBe(false);
    }
    // R20: surfaced on the consecutive turns a+1 … min(a+ttl, last turn it was live at).
    const a = record.acceptedAtTurn;
    const last = Math.min(a + record.ttl, real.endTurn.get(instance) ?? task.turn);
    const want = Array.from({ length: Math.max(0, last - a) }, (_, i) => a + 1 + i);
    expect(
      real.surfacedOn.get(instance) ?? [],
      `turns ${record.content.id} was surfaced on`,
    ).toEqual(want);
  }
}

function tick(real: Real): number {
  real.h.clock.advance(1000);
  return real.h.clock.ms;
}

class InjectCommand implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly task: number,
    readonly content: ModelContent,
  ) {}
  check(): boolean {
    return true;
  }
  async run(model: Model, real: Real): Promise<void> {
    const taskId = TASKS[this.task] ?? 't0';
    const nowMs = tick(real);
    const expected = model.m.inject(taskId, this.content, nowMs);
    const actual = await outcomeOf(() => real.h.inject(taskId, injectRequestOf(this.content)));
    if (expectSameOutcome(`inject ${this.content.id} into ${taskId}`, expected, actual)) {
      if ('error' in expected) return;
      const { record, replay } = expected.ok;
      // R13: a replay repeats the accepting answer exactly.
      expect(toJson(InjectTaskReminderResponseSchema, actual.ok)).toEqual(
        expectedInjectResponse(taskId, record, WORKING),
      );
      if (!replay) real.accepted.set(record.instance, { taskId, record });
    } else if ('error' in actual) {
      expect(actual.error.metadata.taskId).toBe(taskId);
    }
    await checkAll(model, real, taskId, 'error' in expected ? [] : expected.events, nowMs);
  }
  toString(): string {
    return `inject(${TASKS[this.task]}, ${JSON.stringify(this.content)})`;
  }
}

class TurnCommand implements fc.AsyncCommand<Model, Real> {
  constructor(readonly task: number) {}
  check(): boolean {
    return true;
  }
  async run(model: Model, real: Real): Promise<void> {
    const taskId = TASKS[this.task] ?? 't0';
    const nowMs = tick(real);
    const expected = model.m.turn(taskId, nowMs);
    const entry = real.tasks.get(taskId);
    if (entry === undefined || 'error' in expected) throw new Error('setup');
    const turn = await real.h.service.beginTurn(entry.rc, entry.sink.bus);
    expect({
      turn: turn.turn,
      reminders: turn.reminders.map((r) => ({
        id: r.id,
        turnsRemaining: r.turnsRemaining,
        firstSurfacing: r.firstSurfacing,
      })),
    }).toEqual({ turn: expected.ok.turn, reminders: expected.ok.surfaced });
    // Observations for R20, keyed by the model instance the surfaced id names.
    const task = model.m.task(taskId);
    for (const r of turn.reminders) {
      const record = task.records.find((x) => x.content.id === r.id);
      if (record === undefined) throw new Error(`turn surfaced ${r.id}, which is not retained`);
      // The body and metadata reach the runtime as accepted.
      expect({ body: r.body, metadata: r.metadata }).toEqual({
        body: record.content.body,
        metadata: record.content.metadata,
      });
      const turns = real.surfacedOn.get(record.instance) ?? [];
      turns.push(turn.turn);
      real.surfacedOn.set(record.instance, turns);
    }
    await checkAll(model, real, taskId, expected.events, nowMs);
  }
  toString(): string {
    return `turn(${TASKS[this.task]})`;
  }
}

class CancelCommand implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly task: number,
    readonly id: number,
  ) {}
  check(): boolean {
    return true;
  }
  async run(model: Model, real: Real): Promise<void> {
    const taskId = TASKS[this.task] ?? 't0';
    const reminderId = `r${this.id}`;
    const nowMs = tick(real);
    const expected = model.m.cancel(taskId, reminderId, nowMs);
    const actual = await outcomeOf(() => real.h.cancel(taskId, reminderId));
    if (expectSameOutcome(`cancel ${reminderId} of ${taskId}`, expected, actual)) {
      if ('error' in expected) return;
      expect(
        toJson(TaskReminderRecordSchema, actual.ok.record ?? create(TaskReminderRecordSchema)),
      ).toEqual(expectedRecord(taskId, expected.ok));
    } else if ('error' in actual) {
      expect(actual.error.metadata).toMatchObject({ taskId, reminderId });
    }
    await checkAll(model, real, taskId, 'error' in expected ? [] : expected.events, nowMs);
  }
  toString(): string {
    return `cancel(${TASKS[this.task]}, r${this.id})`;
  }
}

class EndCommand implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly task: number,
    readonly state: (typeof END_STATES)[number],
  ) {}
  check(): boolean {
    return true;
  }
  async run(model: Model, real: Real): Promise<void> {
    const taskId = TASKS[this.task] ?? 't0';
    const nowMs = tick(real);
    const expected = model.m.end(taskId, END_STATE_NAMES[this.state], nowMs);
    const entry = real.tasks.get(taskId);
    if (entry === undefined || 'error' in expected) throw new Error('setup');
    // As the executor wrapper does (R28): end the reminders, then store the terminal state.
    await real.h.service.endTask(entry.rc, entry.sink.bus, this.state);
    await real.h.saveTask(taskId, this.state);
    await checkAll(model, real, taskId, expected.events, nowMs);
  }
  toString(): string {
    return `end(${TASKS[this.task]}, ${END_STATE_NAMES[this.state]})`;
  }
}

class ListCommand implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly task: number,
    readonly options: ListOptions,
  ) {}
  check(): boolean {
    return true;
  }
  async run(model: Model, real: Real): Promise<void> {
    const taskId = TASKS[this.task] ?? 't0';
    const nowMs = tick(real);
    // Listing changes nothing (R34); pages concatenate to the listing (R49).
    await checkAll(model, real, taskId, [], nowMs, this.options);
  }
  toString(): string {
    return `list(${TASKS[this.task]}, ${JSON.stringify(this.options)})`;
  }
}

const task = fc.integer({ min: 0, max: TASKS.length - 1 });
const id = fc.integer({ min: 0, max: 7 });
const inject = fc
  .record({
    task,
    id,
    // 0 (most sends): the id's usual content; 1–3: one field changed.
    tweak: fc.oneof({ weight: 6, arbitrary: fc.constant(0) }, fc.integer({ min: 1, max: 3 })),
    ordering: fc.boolean(),
    explicitTtl: fc.boolean(),
  })
  .map((c) => new InjectCommand(c.task, contentOf(c.id, c.tweak, c.ordering, c.explicitTtl)));
const turn = task.map((t) => new TurnCommand(t));
const cancel = fc.record({ task, id }).map((c) => new CancelCommand(c.task, c.id));
const end = fc
  .record({ task, state: fc.constantFrom(...END_STATES) })
  .map((c) => new EndCommand(c.task, c.state));
const list = fc
  .record(
    { task, pageSize: fc.integer({ min: 1, max: 4 }), liveOnly: fc.boolean() },
    { requiredKeys: ['task'] },
  )
  .map(({ task: t, ...options }) => new ListCommand(t, options));
// fc.commands picks uniformly among these: repeats weight them, so that a
// task sees a few dozen commands before it ends.
const commands = [
  ...Array.from({ length: 10 }, () => inject),
  ...Array.from({ length: 8 }, () => turn),
  ...Array.from({ length: 4 }, () => cancel),
  end,
  list,
  list,
];

async function setup(): Promise<{ model: Model; real: Real }> {
  const h = harness({
    limits: {
      maxLiveRemindersPerTask: LIMITS.maxLive,
      maxRetainedFinalRemindersPerTask: LIMITS.maxFinal,
    },
  });
  const real = realOf(h);
  for (const t of TASKS) {
    const saved = await h.saveTask(t, TaskState.TASK_STATE_WORKING);
    real.tasks.set(t, { sink: h.openBus(t), rc: h.requestContext(saved) });
  }
  return { model: { m: new ReminderModel(LIMITS, TASKS) }, real };
}

/** R13 at the end of a run: every retained record's content re-sent gives its answer, changes nothing. */
async function replayEverything(model: Model, real: Real): Promise<void> {
  for (const t of TASKS) {
    await checkListing(model, real, t);
    const before = (await listAll(real.h, t)).map((r) => toJson(TaskReminderRecordSchema, r));
    const batches = real.tasks.get(t)?.sink.batches().length;
    for (const record of model.m.task(t).records) {
      const response = await real.h.inject(t, injectRequestOf(record.content));
      expect(toJson(InjectTaskReminderResponseSchema, response)).toEqual(
        expectedInjectResponse(t, record, WORKING),
      );
    }
    const after = (await listAll(real.h, t)).map((r) => toJson(TaskReminderRecordSchema, r));
    expect(after).toEqual(before);
    expect(real.tasks.get(t)?.sink.batches().length).toBe(batches);
  }
}

describe('model-based properties', () => {
  it('R12–R27, R34, R44, R48: every command matches the reference model exactly', async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 80, size: 'max' }), async (cmds) => {
        const { model, real } = await setup();
        await fc.asyncModelRun(() => ({ model, real }), cmds);
        await replayEverything(model, real);
      }),
      // A bounded number of runs, never a time budget: the verdict does not depend on speed.
      { numRuns: 100 },
    );
  });

  it('the model itself: a reminder with ttl N is surfaced on exactly N consecutive turns', () => {
    // A sanity anchor for the oracle, independent of the service.
    const m = new ReminderModel({ maxLive: 2, maxFinal: Number.POSITIVE_INFINITY }, ['t']);
    m.turn('t', 0);
    const accepted = m.inject(
      't',
      { id: 'r', body: 'b', dedupeKey: '', ttlTurns: 3, metadata: undefined },
      0,
    );
    expect('ok' in accepted).toBe(true);
    const turns: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      const t = m.turn('t', 0);
      if ('ok' in t && t.ok.surfaced.some((s) => s.id === 'r')) turns.push(t.ok.turn);
    }
    expect(turns).toEqual([2, 3, 4]);
    expect(m.task('t').records[0]?.state).toBe('EXPIRED');
  });
});
