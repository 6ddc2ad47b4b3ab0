import { TaskState } from '@a2a-js/sdk';
import type { TaskReminderRecord } from '@a2a-reminders/proto';
import {
  CancelTaskReminderRequestSchema,
  InjectTaskReminderRequestSchema,
  ListTaskRemindersRequestSchema,
  ReminderHopSchema,
  ReminderState,
} from '@a2a-reminders/proto';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { describe, expect, it, vi } from 'vitest';
import { ReminderError } from './errors.js';
import type { ForwardingClient, ForwardRemindersOptions } from './reminder-forwarding.js';
import { MAX_FORWARDS_PER_REMINDER } from './reminder-forwarding.js';
import type { Harness, HarnessOptions } from './testing/harness.js';
import { harness, rejection } from './testing/harness.js';

/** vi.waitFor's hang guard: far past anything in process, so only a broken wake-up fails it. */
const WAIT = { timeout: 20_000, interval: 5 };

/** The sub-agent's service, called in process as a binding's client would call it. */
function clientOf(sub: Harness): ForwardingClient & { injects: number } {
  const client = {
    injects: 0,
    injectTaskReminder: (request: Parameters<ForwardingClient['injectTaskReminder']>[0]) => {
      client.injects += 1;
      return sub.service.injectTaskReminder(
        create(InjectTaskReminderRequestSchema, request),
        sub.ctx,
      );
    },
    cancelTaskReminder: (request: Parameters<ForwardingClient['cancelTaskReminder']>[0]) =>
      sub.service.cancelTaskReminder(create(CancelTaskReminderRequestSchema, request), sub.ctx),
    listTaskReminders: (request: Parameters<ForwardingClient['listTaskReminders']>[0]) =>
      sub.service.listTaskReminders(create(ListTaskRemindersRequestSchema, request), sub.ctx),
  };
  return client;
}

/** Rejects with the signal's reason once the forwarder's deadline for the call passes. */
function deadline(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_, reject) => {
    if (signal === undefined) reject(new Error('the forwarder gave the call no deadline'));
    else if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/**
 * The sub-task's client whose injects reach the sub-task but whose answers
 * never come back: each waits out the forwarder's deadline, so the copy's
 * state is unknown to it (R62: INTERNAL). With `late`, the request itself is
 * held until `deliver()`, as one still in transit when the deadline passed.
 */
function unanswered(client: ReturnType<typeof clientOf>, options: { late?: boolean } = {}) {
  const held: Array<() => Promise<unknown>> = [];
  const lost = {
    cancels: 0,
    /** Fails the next cancels with no answer, before they reach the sub-task. */
    cancelsLost: 0,
    injectTaskReminder: async (
      request: Parameters<ForwardingClient['injectTaskReminder']>[0],
      call?: Parameters<ForwardingClient['injectTaskReminder']>[1],
    ) => {
      const arrive = () => client.injectTaskReminder(request);
      if (options.late) held.push(arrive);
      else await arrive();
      return deadline(call?.signal);
    },
    cancelTaskReminder: (request: Parameters<ForwardingClient['cancelTaskReminder']>[0]) => {
      lost.cancels += 1;
      if (lost.cancelsLost > 0) {
        lost.cancelsLost -= 1;
        return Promise.reject(new Error('socket hang up'));
      }
      return client.cancelTaskReminder(request);
    },
    listTaskReminders: client.listTaskReminders,
    /** The held injects reach the sub-task, in the order they were sent. */
    async deliver() {
      for (const arrive of held.splice(0)) await arrive();
    },
  };
  return lost;
}

/** A running parent task and a running sub-task on another agent, the parent forwarding into it. */
async function chain(
  options: {
    parent?: HarnessOptions;
    sub?: HarnessOptions;
    forward?: Partial<ForwardRemindersOptions>;
  } = {},
) {
  const parent = harness(options.parent);
  const sub = harness(options.sub);
  const parentTask = await parent.saveTask('parent', TaskState.TASK_STATE_WORKING);
  const subTask = await sub.saveTask('sub', TaskState.TASK_STATE_WORKING);
  const parentBus = parent.openBus('parent');
  const subBus = sub.openBus('sub');
  const client = clientOf(sub);
  const start = () =>
    parent.service.forwardReminders(parent.requestContext(parentTask), parentBus.bus, {
      client,
      taskId: 'sub',
      ...options.forward,
    });
  return { parent, sub, parentTask, subTask, parentBus, subBus, client, start };
}

async function recordOf(h: Harness, taskId: string, id: string): Promise<TaskReminderRecord> {
  const record = (await h.list(taskId)).reminders.find((r) => r.reminder?.id === id);
  if (record === undefined) throw new Error(`no record ${id} in ${taskId}`);
  return record;
}

/** The parent's `forward` events, as `reminderId:state` (or `:refusal`). */
function forwardEvents(events: ReturnType<Harness['openBus']>['batches']): string[] {
  return events()
    .flat()
    .flatMap((e) =>
      e.event.case === 'forward'
        ? [`${e.reminderId}:${e.event.value.refusal || ReminderState[e.event.value.state]}`]
        : [],
    );
}

describe('forwarding reminders into a sub-task', () => {
  it('R58, R62: live reminders go as copies with one more hop of provenance; their record lists the copy', async () => {
    const c = await chain();
    await c.parent.inject('parent', {
      id: 'ci',
      body: 'CI is red on main',
      dedupeKey: 'ci',
      ttlTurns: 3,
      source: 'coordinator',
      metadata: { run: 7 },
    });
    // One turn surfaces it: the copy gets what is left of its ttl (R58).
    await c.parent.service.beginTurn(c.parent.requestContext(c.parentTask), c.parentBus.bus);
    const forwarding = c.start();
    await forwarding.sync();

    const copy = await recordOf(c.sub, 'sub', 'ci');
    expect(copy.state).toBe(ReminderState.PENDING);
    expect(copy.reminder).toMatchObject({
      body: 'CI is red on main',
      dedupeKey: 'ci',
      ttlTurns: 2,
      source: 'coordinator',
      metadata: { run: 7 },
      provenance: { hops: [{ taskId: 'parent', reminderId: 'ci', source: 'coordinator' }] },
    });
    const original = await recordOf(c.parent, 'parent', 'ci');
    expect(original.forwards).toHaveLength(1);
    expect(original.forwards[0]).toMatchObject({
      taskId: 'sub',
      reminderId: 'ci',
      state: ReminderState.PENDING,
      refusal: '',
    });
    expect(forwardEvents(c.parentBus.batches)).toEqual(['ci:PENDING']);

    // A reminder accepted while forwarding goes too, with no call of the worker's:
    // the inject wakes the forwarding (R62).
    await c.parent.inject('parent', { id: 'late', body: 'rebase first' });
    await vi.waitFor(async () => expect(c.client.injects).toBe(2), WAIT);
    await vi.waitFor(
      async () =>
        expect((await recordOf(c.sub, 'sub', 'late')).reminder?.provenance?.hops).toHaveLength(1),
      WAIT,
    );
    // Each reminder goes once, however often the forwarding syncs.
    await forwarding.sync();
    expect(c.client.injects).toBe(2);
    await forwarding.close();
  });

  it('R62: the filter decides which reminders go, and the copies take the source given', async () => {
    const c = await chain({
      forward: { filter: (r) => r.dedupeKey === 'ci', source: 'worker' },
    });
    await c.parent.inject('parent', { id: 'ci', body: 'CI is red', dedupeKey: 'ci' });
    await c.parent.inject('parent', { id: 'cost', body: 'over budget', dedupeKey: 'cost' });
    const forwarding = c.start();
    await forwarding.sync();
    const listed = (await c.sub.list('sub')).reminders;
    expect(listed.map((r) => [r.reminder?.id, r.reminder?.source])).toEqual([['ci', 'worker']]);
    expect((await recordOf(c.parent, 'parent', 'cost')).forwards).toEqual([]);
    await forwarding.close();
  });

  it('R63: cancelling the original cancels its copy, and the record and stream say so', async () => {
    const c = await chain();
    await c.parent.inject('parent', { id: 'ci', body: 'CI is red' });
    const forwarding = c.start();
    await forwarding.sync();
    await c.parent.cancel('parent', 'ci');
    await forwarding.sync();
    expect((await recordOf(c.sub, 'sub', 'ci')).state).toBe(ReminderState.CANCELLED);
    const original = await recordOf(c.parent, 'parent', 'ci');
    expect(original.state).toBe(ReminderState.CANCELLED);
    expect(original.forwards[0]?.state).toBe(ReminderState.CANCELLED);
    expect(forwardEvents(c.parentBus.batches)).toEqual(['ci:PENDING', 'ci:CANCELLED']);
    await forwarding.close();
  });

  it('R63: a newer reminder with the same dedupe key displaces the copy in the sub-task as well', async () => {
    const c = await chain();
    await c.parent.inject('parent', { id: 'ci-1', body: 'CI is red', dedupeKey: 'ci' });
    const forwarding = c.start();
    await forwarding.sync();
    await c.parent.inject('parent', { id: 'ci-2', body: 'CI is red again', dedupeKey: 'ci' });
    await forwarding.sync();
    const old = await recordOf(c.sub, 'sub', 'ci-1');
    expect([old.state, old.displacedBy]).toEqual([ReminderState.DISPLACED, 'ci-2']);
    expect((await recordOf(c.sub, 'sub', 'ci-2')).state).toBe(ReminderState.PENDING);
    expect((await recordOf(c.parent, 'parent', 'ci-1')).forwards[0]?.state).toBe(
      ReminderState.DISPLACED,
    );
    expect(forwardEvents(c.parentBus.batches)).toEqual([
      'ci-1:PENDING',
      'ci-2:PENDING',
      'ci-1:DISPLACED',
    ]);
    await forwarding.close();
  });

  it('R63: a copy whose original is displaced by a reminder the filter keeps back is cancelled', async () => {
    const c = await chain({ forward: { filter: (r) => r.source !== 'noisy' } });
    await c.parent.inject('parent', { id: 'ci-1', body: 'CI is red', dedupeKey: 'ci' });
    const forwarding = c.start();
    await forwarding.sync();
    await c.parent.inject('parent', {
      id: 'ci-2',
      body: 'CI is red',
      dedupeKey: 'ci',
      source: 'noisy',
    });
    await forwarding.sync();
    expect((await recordOf(c.sub, 'sub', 'ci-1')).state).toBe(ReminderState.CANCELLED);
    expect((await c.sub.list('sub')).reminders).toHaveLength(1);
    await forwarding.close();
  });

  it("R63, R64: the copy's fates reach the original's record from the sub-task's stream and, at close, its list", async () => {
    const c = await chain();
    await c.parent.inject('parent', { id: 'ci', body: 'CI is red', ttlTurns: 2 });
    const forwarding = c.start();
    await forwarding.sync();
    const subTurn = () => c.sub.service.beginTurn(c.sub.requestContext(c.subTask), c.subBus.bus);
    expect((await subTurn()).reminders.map((r) => r.id)).toEqual(['ci']);
    for (const event of c.subBus.events) await forwarding.observe(event);
    expect((await recordOf(c.parent, 'parent', 'ci')).forwards[0]?.state).toBe(
      ReminderState.ACTIVE,
    );
    // Its expiry is not handed over: close reads it off the sub-task.
    await subTurn();
    await subTurn();
    await forwarding.close();
    expect((await recordOf(c.parent, 'parent', 'ci')).forwards[0]?.state).toBe(
      ReminderState.EXPIRED,
    );
    expect(forwardEvents(c.parentBus.batches)).toEqual(['ci:PENDING', 'ci:ACTIVE', 'ci:EXPIRED']);
    // The original's own life is its own: still pending in the parent.
    expect((await recordOf(c.parent, 'parent', 'ci')).state).toBe(ReminderState.PENDING);
  });

  it("R60: a copy past the sub-task's hop limit is refused, and the refusal is on the original's record", async () => {
    const c = await chain({ sub: { limits: { maxForwardHops: 1 } } });
    await c.parent.inject('parent', {
      id: 'ci',
      body: 'CI is red',
      provenance: { hops: [{ taskId: 'grandparent', reminderId: 'ci-0', source: 'ops' }] },
    });
    const forwarding = c.start();
    await forwarding.sync();
    expect((await c.sub.list('sub')).reminders).toEqual([]);
    const original = await recordOf(c.parent, 'parent', 'ci');
    expect(original.forwards[0]).toMatchObject({
      taskId: 'sub',
      state: ReminderState.UNSPECIFIED,
      refusal: 'FORWARD_HOP_LIMIT_EXCEEDED',
    });
    expect(forwardEvents(c.parentBus.batches)).toEqual(['ci:FORWARD_HOP_LIMIT_EXCEEDED']);
    await forwarding.close();
  });

  it('R60: the service refuses more hops than maxForwardHops with its own code', async () => {
    const h = harness({ limits: { maxForwardHops: 2 } });
    await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    const hop = (i: number) => ({ taskId: `t-${i}`, reminderId: 'r', source: '' });
    await h.inject('t1', { id: 'two', body: 'b', provenance: { hops: [hop(1), hop(2)] } });
    const error = await rejection(
      h.inject('t1', { id: 'three', body: 'b', provenance: { hops: [hop(1), hop(2), hop(3)] } }),
    );
    expect(error).toBeInstanceOf(ReminderError);
    expect(error).toMatchObject({
      code: 'FORWARD_HOP_LIMIT_EXCEEDED',
      metadata: { taskId: 't1', hops: '3', limit: '2' },
      fieldViolations: [{ field: 'reminder.provenance.hops' }],
    });
    expect((await h.list('t1')).reminders.map((r) => r.reminder?.id)).toEqual(['two']);
  });

  it('R61: a reminder whose provenance names the receiving task is refused, so agents cannot loop', async () => {
    const h = harness();
    await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    const error = await rejection(
      h.inject('t1', {
        id: 'r',
        body: 'b',
        provenance: {
          hops: [
            { taskId: 't1', reminderId: 'r', source: '' },
            { taskId: 't2', reminderId: 'r', source: '' },
          ],
        },
      }),
    );
    expect(error).toMatchObject({
      code: 'FORWARD_LOOP',
      metadata: { taskId: 't1', hop: '0' },
      fieldViolations: [{ field: 'reminder.provenance.hops[0].taskId' }],
    });
    expect((await h.list('t1')).reminders).toEqual([]);
  });

  it('R59: provenance is validated like every other field, before R60 and R61', async () => {
    const h = harness({ limits: { maxForwardHops: 2 } });
    await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    const empty = await rejection(h.inject('t1', { id: 'r', body: 'b', provenance: {} }));
    expect(empty).toMatchObject({
      code: 'INVALID_ARGUMENT',
      fieldViolations: [{ field: 'reminder.provenance.hops' }],
    });
    const bad = await rejection(
      h.inject('t1', {
        id: 'r',
        body: 'b',
        provenance: {
          hops: [
            { taskId: '', reminderId: 'ok' },
            { taskId: 't1', reminderId: 'no spaces', source: 'x'.repeat(257) },
          ],
        },
      }),
    );
    expect(bad).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect((bad as ReminderError).fieldViolations.map((v) => v.field)).toEqual([
      'reminder.provenance.hops[0].taskId',
      'reminder.provenance.hops[1].reminderId',
      'reminder.provenance.hops[1].source',
    ]);
    // Past the limit, hops are not looked at one by one: R60 answers (a short refusal).
    const many = Array.from({ length: 1000 }, () => ({ taskId: '', reminderId: '' }));
    const tooMany = await rejection(
      h.inject('t1', { id: 'r', body: 'b', provenance: { hops: many } }),
    );
    expect(tooMany).toMatchObject({ code: 'FORWARD_HOP_LIMIT_EXCEEDED' });
    expect((tooMany as ReminderError).fieldViolations).toHaveLength(1);
  });

  it('R13: a re-sent copy is idempotent only with the same provenance', async () => {
    const h = harness();
    await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    const provenance = { hops: [{ taskId: 'p', reminderId: 'r', source: 's' }] };
    const first = await h.inject('t1', { id: 'r', body: 'b', provenance });
    expect(await h.inject('t1', { id: 'r', body: 'b', provenance })).toEqual(first);
    const other = { hops: [{ taskId: 'q', reminderId: 'r', source: 's' }] };
    expect(
      await rejection(h.inject('t1', { id: 'r', body: 'b', provenance: other })),
    ).toMatchObject({ code: 'REMINDER_ID_CONFLICT' });
  });

  it('R63: once the task has ended, copies are still tracked on the record but nothing is published', async () => {
    const c = await chain();
    await c.parent.inject('parent', { id: 'ci', body: 'CI is red' });
    const forwarding = c.start();
    await forwarding.sync();
    await c.parent.service.endTask(
      c.parent.requestContext(c.parentTask),
      c.parentBus.bus,
      TaskState.TASK_STATE_COMPLETED,
    );
    const published = c.parentBus.events.length;
    await c.sub.cancel('sub', 'ci');
    await forwarding.close();
    expect((await recordOf(c.parent, 'parent', 'ci')).forwards[0]?.state).toBe(
      ReminderState.CANCELLED,
    );
    expect(c.parentBus.events.length).toBe(published);
  });

  it('R63: an agent that cannot be reached is recorded as the refusal its client reports', async () => {
    const c = await chain();
    await c.parent.inject('parent', { id: 'ci', body: 'CI is red' });
    const down: ForwardingClient = {
      ...c.client,
      injectTaskReminder: () => Promise.reject(new Error('connect ECONNREFUSED')),
    };
    const forwarding = c.parent.service.forwardReminders(
      c.parent.requestContext(c.parentTask),
      c.parentBus.bus,
      { client: down, taskId: 'sub' },
    );
    await forwarding.close();
    expect((await recordOf(c.parent, 'parent', 'ci')).forwards[0]?.refusal).toBe('INTERNAL');
  });

  it('R62: a send that got no answer is sent again as the same request, and a refusal is never sent again', async () => {
    const c = await chain({ sub: { limits: { maxForwardHops: 0 } } });
    await c.parent.inject('parent', { id: 'ci', body: 'CI is red' });
    const sent: unknown[] = [];
    let fail = 2;
    const flaky: ForwardingClient = {
      ...c.client,
      injectTaskReminder: (request, options) => {
        sent.push(request);
        if (fail-- > 0) return Promise.reject(new Error('socket hang up'));
        return c.client.injectTaskReminder(request, options);
      },
    };
    const forwarding = c.parent.service.forwardReminders(
      c.parent.requestContext(c.parentTask),
      c.parentBus.bus,
      { client: flaky, taskId: 'sub' },
    );
    await forwarding.sync();
    await forwarding.sync();
    await forwarding.sync();
    await forwarding.sync();
    // Two lost sends, then the sub-task's own answer: refused (its limit is 0), never asked again.
    expect(sent).toHaveLength(3);
    expect(sent[1]).toEqual(sent[0]);
    expect(sent[2]).toEqual(sent[0]);
    expect(forwardEvents(c.parentBus.batches)).toEqual([
      'ci:INTERNAL',
      'ci:FORWARD_HOP_LIMIT_EXCEEDED',
    ]);
    await forwarding.close();
  });

  it('R64: a copy whose send got no answer is adopted at close when the sub-task lists it', async () => {
    const c = await chain();
    await c.parent.inject('parent', { id: 'ci', body: 'CI is red' });
    const lost: ForwardingClient = {
      ...c.client,
      // Arrives, but the answer is lost, every time.
      injectTaskReminder: async (request, options) => {
        await c.client.injectTaskReminder(request, options);
        throw new Error('socket hang up');
      },
    };
    const forwarding = c.parent.service.forwardReminders(
      c.parent.requestContext(c.parentTask),
      c.parentBus.bus,
      { client: lost, taskId: 'sub' },
    );
    await forwarding.close();
    expect((await recordOf(c.parent, 'parent', 'ci')).forwards[0]).toMatchObject({
      state: ReminderState.PENDING,
      refusal: '',
    });
    expect(forwardEvents(c.parentBus.batches)).toEqual(['ci:INTERNAL', 'ci:PENDING']);
  });

  it('R62: a filter that throws keeps that reminder back, forwards the others, and close reports it', async () => {
    const c = await chain({
      forward: {
        filter: (r) => {
          if (r.id === 'bad') throw new Error('filter broke');
          return true;
        },
      },
    });
    await c.parent.inject('parent', { id: 'bad', body: 'x' });
    await c.parent.inject('parent', { id: 'good', body: 'y' });
    const forwarding = c.start();
    await forwarding.sync();
    expect((await c.sub.list('sub')).reminders.map((r) => r.reminder?.id)).toEqual(['good']);
    await expect(forwarding.close()).rejects.toThrow('filter broke');
  });

  it('R64: closing forwards nothing new, even a reminder whose sync was waiting, and ignores what it is handed', async () => {
    const c = await chain();
    await c.parent.inject('parent', { id: 'ci', body: 'CI is red' });
    // The first send waits for the gate, so the forwarding is busy when the next inject comes.
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const gated: ForwardingClient = {
      ...c.client,
      injectTaskReminder: async (request, options) => {
        await gate;
        return c.client.injectTaskReminder(request, options);
      },
    };
    const forwarding = c.parent.service.forwardReminders(
      c.parent.requestContext(c.parentTask),
      c.parentBus.bus,
      { client: gated, taskId: 'sub' },
    );
    // Its wake queues a sync behind the send; the forwarding closes before it runs.
    await c.parent.inject('parent', { id: 'late', body: 'after the delegation' });
    const closed = forwarding.close();
    open();
    await closed;
    await forwarding.sync();
    expect(c.client.injects).toBe(1);
    expect((await recordOf(c.parent, 'parent', 'late')).forwards).toEqual([]);
    // The copy's turn in the sub-task, handed over once closed: not learned.
    await c.sub.service.beginTurn(c.sub.requestContext(c.subTask), c.subBus.bus);
    for (const event of c.subBus.events) await forwarding.observe(event);
    expect(
      c.subBus
        .batches()
        .flat()
        .map((e) => e.event.case),
    ).toContain('emitted');
    expect((await recordOf(c.parent, 'parent', 'ci')).forwards[0]?.state).toBe(
      ReminderState.PENDING,
    );
  });

  it('R62: unanswered sends are tried three times in all, by themselves, then left as INTERNAL', async () => {
    const c = await chain({ forward: { syncIntervalMs: 10 } });
    await c.parent.inject('parent', { id: 'ci', body: 'CI is red' });
    let sends = 0;
    const down: ForwardingClient = {
      ...c.client,
      injectTaskReminder: () => {
        sends += 1;
        return Promise.reject(new Error('connect ECONNREFUSED'));
      },
    };
    const forwarding = c.parent.service.forwardReminders(
      c.parent.requestContext(c.parentTask),
      c.parentBus.bus,
      { client: down, taskId: 'sub', syncIntervalMs: 10 },
    );
    // No inject, no replicas: the retry wake alone sends again.
    await vi.waitFor(() => expect(sends).toBe(3), WAIT);
    await forwarding.sync();
    await forwarding.sync();
    await forwarding.close();
    expect(sends).toBe(3);
    expect((await recordOf(c.parent, 'parent', 'ci')).forwards[0]?.refusal).toBe('INTERNAL');
  });

  it('R63: a record lists at most 16 copies, the oldest ended one making room, else the oldest', async () => {
    const parent = harness();
    const parentTask = await parent.saveTask('parent', TaskState.TASK_STATE_WORKING);
    const bus = parent.openBus('parent').bus;
    await parent.inject('parent', { id: 'ci', body: 'CI is red', ttlTurns: 5 });
    const forwardInto = async (i: number, end: boolean) => {
      const sub = harness();
      await sub.saveTask(`sub-${i}`, TaskState.TASK_STATE_WORKING);
      const forwarding = parent.service.forwardReminders(parent.requestContext(parentTask), bus, {
        client: clientOf(sub),
        taskId: `sub-${i}`,
      });
      await forwarding.sync();
      if (end) await sub.cancel(`sub-${i}`, 'ci');
      await forwarding.close();
    };
    const listed = async () =>
      (await recordOf(parent, 'parent', 'ci')).forwards.map((f) => f.taskId);
    const sub = (i: number) => `sub-${i}`;
    // Sixteen copies, those in sub-tasks 5 and 6 ended there.
    for (let i = 0; i < MAX_FORWARDS_PER_REMINDER; i++) await forwardInto(i, i === 5 || i === 6);
    // Two more push out the ended ones, in the order they were forwarded.
    await forwardInto(16, false);
    await forwardInto(17, false);
    const expected = [0, 1, 2, 3, 4, ...Array.from({ length: 11 }, (_, i) => i + 7)].map(sub);
    expect(await listed()).toEqual(expected);
    // With none ended, the oldest goes.
    await forwardInto(18, false);
    expect(await listed()).toEqual([...expected.slice(1), sub(18)]);
  });

  it('refuses a sub-task id that could not be stored, and intervals that would spin', async () => {
    const c = await chain();
    const start = (options: Partial<ForwardRemindersOptions>) => () =>
      c.parent.service.forwardReminders(c.parent.requestContext(c.parentTask), c.parentBus.bus, {
        client: c.client,
        taskId: 'sub',
        ...options,
      });
    expect(start({ taskId: ' ' })).toThrow(RangeError);
    expect(start({ taskId: 'x'.repeat(257) })).toThrow(RangeError);
    expect(start({ taskId: 'sub\u0000' })).toThrow(RangeError);
    expect(start({ syncIntervalMs: 0 })).toThrow(RangeError);
    expect(start({ callTimeoutMs: Number.NaN })).toThrow(RangeError);
    expect(() => harness({ limits: { maxForwardHops: -1 } })).toThrow(RangeError);
  });

  it('R59: unknown fields inside provenance are not kept', async () => {
    const h = harness();
    await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    const hop = create(ReminderHopSchema, { taskId: 'p', reminderId: 'r' });
    const withUnknown = fromBinary(
      ReminderHopSchema,
      new Uint8Array([...toBinary(ReminderHopSchema, hop), 0x48, 0x01]),
    );
    expect(withUnknown.$unknown).toBeDefined();
    await h.service.injectTaskReminder(
      create(InjectTaskReminderRequestSchema, {
        taskId: 't1',
        reminder: { id: 'r', body: 'b', provenance: { hops: [withUnknown] } },
      }),
      h.ctx,
    );
    const stored = (await h.list('t1')).reminders[0]?.reminder?.provenance?.hops[0];
    expect(stored).toEqual(hop);
    expect(stored?.$unknown).toBeUndefined();
  });
});

describe('forwarding: copies of unknown state (R68)', () => {
  /** The chain, forwarding through a client whose inject answers are lost. */
  async function lostAnswers(
    options: { late?: boolean; forward?: Partial<ForwardRemindersOptions> } = {},
  ) {
    const c = await chain();
    const lost = unanswered(c.client, options);
    const start = () =>
      c.parent.service.forwardReminders(c.parent.requestContext(c.parentTask), c.parentBus.bus, {
        client: lost,
        taskId: 'sub',
        callTimeoutMs: 10,
        ...options.forward,
      });
    return { ...c, lost, start };
  }

  it('R68: cancelling the original cancels a copy whose inject timed out but arrived', async () => {
    const c = await lostAnswers();
    await c.parent.inject('parent', { id: 'ci', body: 'CI is red' });
    const forwarding = c.start();
    await forwarding.sync();
    // The copy is in the sub-task; the forwarder never heard so.
    expect((await recordOf(c.sub, 'sub', 'ci')).state).toBe(ReminderState.PENDING);
    expect((await recordOf(c.parent, 'parent', 'ci')).forwards[0]?.refusal).toBe('INTERNAL');

    await c.parent.cancel('parent', 'ci');
    await forwarding.sync();
    expect((await recordOf(c.sub, 'sub', 'ci')).state).toBe(ReminderState.CANCELLED);
    expect((await recordOf(c.parent, 'parent', 'ci')).forwards[0]).toMatchObject({
      taskId: 'sub',
      reminderId: 'ci',
      state: ReminderState.CANCELLED,
      refusal: '',
    });
    expect(forwardEvents(c.parentBus.batches)).toEqual(['ci:INTERNAL', 'ci:CANCELLED']);
    // Its turn in the sub-task surfaces nothing.
    const turn = await c.sub.service.beginTurn(c.sub.requestContext(c.subTask), c.subBus.bus);
    expect(turn.reminders).toEqual([]);
    await forwarding.close();
    expect(c.lost.cancels).toBe(1);
  });

  it('R68: a copy of unknown state is cancelled when a reminder the filter keeps back displaces its original', async () => {
    const c = await lostAnswers({ forward: { filter: (r) => r.source !== 'noisy' } });
    await c.parent.inject('parent', { id: 'ci-1', body: 'CI is red', dedupeKey: 'ci' });
    const forwarding = c.start();
    await forwarding.sync();
    await c.parent.inject('parent', {
      id: 'ci-2',
      body: 'CI is red',
      dedupeKey: 'ci',
      source: 'noisy',
    });
    await forwarding.sync();
    expect((await recordOf(c.parent, 'parent', 'ci-1')).state).toBe(ReminderState.DISPLACED);
    expect((await c.sub.list('sub')).reminders.map((r) => [r.reminder?.id, r.state])).toEqual([
      ['ci-1', ReminderState.CANCELLED],
    ]);
    expect((await recordOf(c.parent, 'parent', 'ci-1')).forwards[0]).toMatchObject({
      state: ReminderState.CANCELLED,
      refusal: '',
    });
    expect(forwardEvents(c.parentBus.batches)).toEqual(['ci-1:INTERNAL', 'ci-1:CANCELLED']);
    await forwarding.close();
  });

  it('R68: a cancel of a copy of unknown state that got no answer is tried again by itself', async () => {
    const c = await lostAnswers({ forward: { syncIntervalMs: 10 } });
    await c.parent.inject('parent', { id: 'ci', body: 'CI is red' });
    const forwarding = c.start();
    await forwarding.sync();
    c.lost.cancelsLost = 1;
    await c.parent.cancel('parent', 'ci');
    // The cancel's wake, then the retry wake alone: no sync of the test's.
    await vi.waitFor(async () => {
      expect((await recordOf(c.sub, 'sub', 'ci')).state).toBe(ReminderState.CANCELLED);
      expect((await recordOf(c.parent, 'parent', 'ci')).forwards[0]?.state).toBe(
        ReminderState.CANCELLED,
      );
    }, WAIT);
    expect(c.lost.cancels).toBe(2);
    await forwarding.close();
  });

  it('R68: REMINDER_NOT_FOUND settles a copy that had not arrived; close cancels it once the list shows it did', async () => {
    const c = await lostAnswers({ late: true });
    await c.parent.inject('parent', { id: 'ci', body: 'CI is red' });
    const forwarding = c.start();
    await forwarding.sync();
    await c.parent.cancel('parent', 'ci');
    await forwarding.sync();
    // The cancel found no copy: settled, not asked again however often the forwarding syncs.
    await forwarding.sync();
    expect(c.lost.cancels).toBe(1);
    expect((await c.sub.list('sub')).reminders).toEqual([]);
    expect((await recordOf(c.parent, 'parent', 'ci')).forwards[0]?.refusal).toBe('INTERNAL');

    // The copy was in transit: it arrives after that cancel, live in the sub-task.
    await c.lost.deliver();
    expect((await recordOf(c.sub, 'sub', 'ci')).state).toBe(ReminderState.PENDING);
    // Close adopts it from the list, then cancels it, since its original is cancelled.
    await forwarding.close();
    expect(c.lost.cancels).toBe(2);
    expect((await recordOf(c.sub, 'sub', 'ci')).state).toBe(ReminderState.CANCELLED);
    expect((await recordOf(c.parent, 'parent', 'ci')).forwards[0]).toMatchObject({
      state: ReminderState.CANCELLED,
      refusal: '',
    });
    expect(forwardEvents(c.parentBus.batches)).toEqual([
      'ci:INTERNAL',
      'ci:PENDING',
      'ci:CANCELLED',
    ]);
  });

  it('R68, R63: a copy of unknown state whose original expired is left to its own ttl, like any copy', async () => {
    const c = await lostAnswers();
    await c.parent.inject('parent', { id: 'ci', body: 'CI is red', ttlTurns: 1 });
    const forwarding = c.start();
    await forwarding.sync();
    const parentTurn = () =>
      c.parent.service.beginTurn(c.parent.requestContext(c.parentTask), c.parentBus.bus);
    await parentTurn();
    await parentTurn();
    expect((await recordOf(c.parent, 'parent', 'ci')).state).toBe(ReminderState.EXPIRED);
    await forwarding.close();
    expect(c.lost.cancels).toBe(0);
    expect((await recordOf(c.sub, 'sub', 'ci')).state).toBe(ReminderState.PENDING);
    // Close adopts it from the list: the entry shows it arrived.
    expect((await recordOf(c.parent, 'parent', 'ci')).forwards[0]?.state).toBe(
      ReminderState.PENDING,
    );
  });
});
