import { TaskState } from '@a2a-js/sdk';
import { ServerCallContext } from '@a2a-js/sdk/server';
import {
  CancelTaskReminderRequestSchema,
  findReminderRpc,
  InjectTaskReminderRequestSchema,
  ListTaskRemindersRequestSchema,
} from '@a2a-reminders/proto';
import type { JsonObject } from '@bufbuild/protobuf';
import { create } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { callReminderRpc } from './dispatch.js';
import { ReminderError } from './errors.js';
import { TASK_REMINDERS_EXTENSION_URI } from './extension-uri.js';
import { readRequestJson } from './protojson.js';
import type { ReminderRpcHandler } from './service.js';
import type { ReminderInit } from './testing/harness.js';
import { caller, harness, rejection } from './testing/harness.js';

const fields = (error: unknown) => {
  expect(error).toBeInstanceOf(ReminderError);
  const typed = error as ReminderError;
  return `${typed.code} ${typed.fieldViolations.map((v) => v.field).join(',')}`;
};

describe('one request never poisons a task (R41, R43, R44)', () => {
  it('R41: NaN or ±Infinity anywhere in metadata is INVALID_ARGUMENT on its path; nothing is stored', async () => {
    const h = harness();
    await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    const cases: Array<[JsonObject, string]> = [
      [{ x: Number.NaN }, 'reminder.metadata.x'],
      [{ x: Number.POSITIVE_INFINITY }, 'reminder.metadata.x'],
      [{ a: { b: [1, Number.NEGATIVE_INFINITY] } }, 'reminder.metadata.a.b[1]'],
      [{ 'odd key': Number.NaN }, 'reminder.metadata["odd key"]'],
    ];
    for (const [metadata, field] of cases) {
      const error = await rejection(h.inject('t1', { id: 'nan', body: 'b', metadata }));
      expect(fields(error)).toBe(`INVALID_ARGUMENT ${field}`);
    }
    // The task stays listable and the id stays free: the same id with sound metadata is accepted.
    expect((await h.list('t1')).reminders).toEqual([]);
    await h.inject('t1', { id: 'nan', body: 'b', metadata: { x: 1 } });
    expect((await h.list('t1')).reminders.map((r) => r.reminder?.metadata)).toEqual([{ x: 1 }]);
  });

  it('R41: the JSON-RPC reproduction (1e309) is refused after reading, and listing keeps working', async () => {
    const h = harness();
    await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    const read = readRequestJson(
      InjectTaskReminderRequestSchema,
      JSON.parse('{"taskId":"t1","reminder":{"id":"inf-1","body":"hello","metadata":{"x":1e309}}}'),
    );
    const error = await rejection(
      h.service.injectTaskReminder(read.request, h.ctx, read.violations),
    );
    expect(fields(error)).toBe('INVALID_ARGUMENT reminder.metadata.x');
    expect((await h.list('t1')).reminders).toEqual([]);
  });

  it('R42: metadata deeper than 32 levels is refused in process too', async () => {
    const h = harness();
    await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    let deep: JsonObject = { leaf: 1 };
    for (let i = 1; i < 33; i += 1) deep = { a: deep };
    const error = await rejection(h.inject('t1', { id: 'deep', body: 'b', metadata: deep }));
    expect(fields(error)).toBe('INVALID_ARGUMENT reminder.metadata');
    expect((await h.list('t1')).reminders).toEqual([]);
  });

  it('R43: a lone surrogate is refused in every string field and in metadata keys and values', async () => {
    const h = harness();
    await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    const lone = 'x\uD83D';
    const cases: Array<[ReminderInit, string]> = [
      [{ id: 'r', body: lone }, 'reminder.body'],
      [{ id: 'r', body: 'b', source: lone }, 'reminder.source'],
      [{ id: 'r', body: 'b', dedupeKey: lone }, 'reminder.dedupeKey'],
      [{ id: 'r', body: 'b', metadata: { k: lone } }, 'reminder.metadata.k'],
      [{ id: 'r', body: 'b', metadata: { [lone]: 1 } }, 'reminder.metadata["x\\ud83d"]'],
    ];
    for (const [init, field] of cases) {
      const error = await rejection(h.inject('t1', init));
      expect(fields(error)).toBe(`INVALID_ARGUMENT ${field}`);
    }
    const list = await rejection(
      h.service.listTaskReminders(create(ListTaskRemindersRequestSchema, { taskId: lone }), h.ctx),
    );
    expect(fields(list)).toBe('INVALID_ARGUMENT taskId');
    const cancel = await rejection(
      h.service.cancelTaskReminder(
        create(CancelTaskReminderRequestSchema, { taskId: 't1', reminderId: lone }),
        h.ctx,
      ),
    );
    expect(fields(cancel)).toBe('INVALID_ARGUMENT reminderId');
    expect((await h.list('t1')).reminders).toEqual([]);
  });

  it('R44: -0 is stored as 0, as ProtoJSON reads it back, and a re-send stays idempotent', async () => {
    const h = harness();
    await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    const metadata = (): JsonObject => JSON.parse('{"n":-0,"l":[-0,1],"__proto__":{"m":-0}}');
    const first = await h.inject('t1', { id: 'z', body: 'b', metadata: metadata() });
    const again = await h.inject('t1', { id: 'z', body: 'b', metadata: metadata() });
    expect(again).toEqual(first);
    const [record] = (await h.list('t1')).reminders;
    const stored = record?.reminder?.metadata as { n: number; l: number[] };
    expect(Object.is(stored.n, 0)).toBe(true);
    expect(Object.is(stored.l[0], 0)).toBe(true);
    // A `__proto__` member stays a member (and is normalized too).
    const member = Object.getOwnPropertyDescriptor(stored, '__proto__')?.value as { m: number };
    expect(member).toEqual({ m: 0 });
    expect(Object.is(member.m, 0)).toBe(true);
  });
});

describe('order of checks whatever the body (R45) and every violation at once (R8)', () => {
  const anonymous = () =>
    new ServerCallContext({ requestedExtensions: [], requestedVersion: '1.0' });

  it('R45: unreadable fields are reported only after authentication and activation', async () => {
    const h = harness({ requireAuthentication: true });
    await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    const bodies: unknown[] = [
      { taskId: 't1', reminder: { id: 'r', body: 'b', ttlTurns: 'abc' } },
      'not an object',
      [],
    ];
    for (const body of bodies) {
      const read = readRequestJson(InjectTaskReminderRequestSchema, body, 'params');
      expect(read.violations.length).toBeGreaterThan(0);
      const call = (context: ServerCallContext) =>
        rejection(h.service.injectTaskReminder(read.request, context, read.violations));
      expect((await call(anonymous())) as ReminderError).toMatchObject({ code: 'UNAUTHENTICATED' });
      expect(
        (await call(caller({ user: 'alice', activate: false }))) as ReminderError,
      ).toMatchObject({ code: 'EXTENSION_NOT_ACTIVATED' });
      expect((await call(caller({ user: 'alice' }))) as ReminderError).toMatchObject({
        code: 'INVALID_ARGUMENT',
      });
    }
  });

  it('R8: an unreadable value no longer hides the other violations', async () => {
    const h = harness();
    await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    const read = readRequestJson(InjectTaskReminderRequestSchema, {
      taskId: 't1',
      reminder: { id: 'bad id', body: 'b', ttlTurns: 'x' },
    });
    const error = await rejection(
      h.service.injectTaskReminder(read.request, h.ctx, read.violations),
    );
    expect(fields(error)).toBe('INVALID_ARGUMENT reminder.ttlTurns,reminder.id');
  });

  it('R8: an unreadable field gets its own violation only, not one for the default left in its place', async () => {
    const h = harness();
    const read = readRequestJson(InjectTaskReminderRequestSchema, {
      taskId: 7,
      reminder: { id: 12, body: '' },
    });
    const error = await rejection(
      h.service.injectTaskReminder(read.request, h.ctx, read.violations),
    );
    expect(fields(error)).toBe('INVALID_ARGUMENT taskId,reminder.id,reminder.body');
    const whole = readRequestJson(InjectTaskReminderRequestSchema, [], 'params');
    const wholeError = await rejection(
      h.service.injectTaskReminder(whole.request, h.ctx, whole.violations),
    );
    expect(fields(wholeError)).toBe('INVALID_ARGUMENT params');
  });

  it('R45: a handler that ignores read violations still never answers success', async () => {
    const rpc = findReminderRpc('ListTaskReminders');
    if (rpc === undefined) throw new Error('rpc missing');
    let called = 0;
    const careless = {
      listTaskReminders: async () => {
        called += 1;
        return create(ListTaskRemindersRequestSchema);
      },
    } as unknown as ReminderRpcHandler;
    const context = new ServerCallContext({ requestedExtensions: [TASK_REMINDERS_EXTENSION_URI] });
    const error = await rejection(
      callReminderRpc(careless, rpc, create(ListTaskRemindersRequestSchema), context, [
        { field: 'taskId', description: 'must be a string' },
      ]),
    );
    expect(called).toBe(1);
    expect(fields(error)).toBe('INVALID_ARGUMENT taskId');
  });
});
