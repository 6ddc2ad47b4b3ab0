import { TaskState } from '@a2a-js/sdk';
import { ServerCallContext } from '@a2a-js/sdk/server';
import {
  CancelTaskReminderRequestSchema,
  InjectTaskReminderRequestSchema,
  ReminderState,
} from '@a2a-reminders/proto';
import { create } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { ReminderError } from './errors.js';
import { TASK_REMINDERS_EXTENSION_URI } from './extension-uri.js';
import { caller, harness, rejection } from './testing/harness.js';

describe('access', () => {
  it('R3: a request that does not activate the extension gets EXTENSION_NOT_ACTIVATED', async () => {
    const h = harness();
    await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    const ctx = caller({ activate: false });
    const err = await rejection(h.inject('t1', { id: 'r1', body: 'b' }, ctx));
    expect(err).toBeInstanceOf(ReminderError);
    expect((err as ReminderError).code).toBe('EXTENSION_NOT_ACTIVATED');
    expect(ctx.activatedExtensions ?? []).not.toContain(TASK_REMINDERS_EXTENSION_URI);
    await expect(h.list('t1', caller({ activate: false }))).rejects.toMatchObject({
      code: 'EXTENSION_NOT_ACTIVATED',
    });
  });

  it('R3: a request that activates the extension gets it echoed as activated', async () => {
    const h = harness();
    await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    const ctx = caller();
    await h.inject('t1', { id: 'r1', body: 'b' }, ctx);
    expect(ctx.activatedExtensions).toEqual([TASK_REMINDERS_EXTENSION_URI]);
  });

  it('R5: with requireAuthentication an anonymous caller gets UNAUTHENTICATED before anything else', async () => {
    const h = harness({ requireAuthentication: true });
    const anonymous = new ServerCallContext({ requestedExtensions: [] });
    await expect(h.list('missing', anonymous)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    const alice = caller({ user: 'alice' });
    await h.saveTask('t1', TaskState.TASK_STATE_WORKING, alice);
    await expect(h.inject('t1', { id: 'r1', body: 'b' }, alice)).resolves.toBeDefined();
  });

  it('R7: a missing task and a foreign task give the same TASK_NOT_FOUND', async () => {
    const h = harness();
    const alice = caller({ user: 'alice' });
    const bob = caller({ user: 'bob' });
    const otherTenant = caller({ user: 'alice', tenant: 'acme' });
    await h.saveTask('t1', TaskState.TASK_STATE_WORKING, alice);
    const foreign = (await rejection(
      h.inject('t1', { id: 'r1', body: 'b' }, bob),
    )) as ReminderError;
    const tenant = (await rejection(h.list('t1', otherTenant))) as ReminderError;
    await h.saveTask('t2', TaskState.TASK_STATE_WORKING, alice);
    const missing = (await rejection(
      h.inject('t1x', { id: 'r1', body: 'b' }, bob),
    )) as ReminderError;
    expect(foreign.code).toBe('TASK_NOT_FOUND');
    expect(tenant.code).toBe('TASK_NOT_FOUND');
    expect(foreign.message).toBe('Task not found: t1');
    expect(foreign.metadata).toEqual({ taskId: 't1' });
    expect(missing.message).toBe('Task not found: t1x');
    expect(missing.metadata).toEqual({ taskId: 't1x' });
    expect(Object.keys(foreign)).toEqual(Object.keys(missing));
    expect(foreign.toStatusDetails().length).toBe(missing.toStatusDetails().length);
  });

  it('R8: every violation is reported at once with ProtoJSON field paths', async () => {
    const h = harness();
    const err = (await rejection(
      h.service.injectTaskReminder(
        create(InjectTaskReminderRequestSchema, {
          taskId: '',
          reminder: { id: 'bad id!', body: '   ', ttlTurns: 0, roleHint: 'x'.repeat(33) },
        }),
        h.ctx,
      ),
    )) as ReminderError;
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.fieldViolations.map((v) => v.field)).toEqual([
      'taskId',
      'reminder.id',
      'reminder.body',
      'reminder.ttlTurns',
      'reminder.roleHint',
    ]);
  });

  it('R8: validation runs before the task lookup', async () => {
    const h = harness();
    await expect(h.inject('nope', { id: 'r1', body: '' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });

  describe('R9: field rules', () => {
    const cases: Array<[string, Record<string, unknown>, string | undefined]> = [
      ['id missing', { id: '', body: 'b' }, 'reminder.id'],
      ['id 128 chars', { id: 'a'.repeat(128), body: 'b' }, undefined],
      ['id 129 chars', { id: 'a'.repeat(129), body: 'b' }, 'reminder.id'],
      ['id with all allowed punctuation', { id: 'A.z_0:9-x', body: 'b' }, undefined],
      ['id with slash', { id: 'a/b', body: 'b' }, 'reminder.id'],
      ['body blank', { id: 'r', body: ' \n\t ' }, 'reminder.body'],
      ['body at the limit', { id: 'r', body: 'x'.repeat(4096) }, undefined],
      ['body over the limit', { id: 'r', body: 'x'.repeat(4097) }, 'reminder.body'],
      ['body with newline and tab', { id: 'r', body: 'a\nb\tc' }, undefined],
      ['body with carriage return', { id: 'r', body: 'a\rb' }, 'reminder.body'],
      ['body with NUL', { id: 'r', body: 'a\u0000b' }, 'reminder.body'],
      ['body with C1 control', { id: 'r', body: 'a\u0085b' }, 'reminder.body'],
      ['dedupeKey 256', { id: 'r', body: 'b', dedupeKey: 'k'.repeat(256) }, undefined],
      ['dedupeKey 257', { id: 'r', body: 'b', dedupeKey: 'k'.repeat(257) }, 'reminder.dedupeKey'],
      ['ttlTurns 1', { id: 'r', body: 'b', ttlTurns: 1 }, undefined],
      ['ttlTurns 20', { id: 'r', body: 'b', ttlTurns: 20 }, undefined],
      [
        'ttlTurns 21 is rejected, not clamped',
        { id: 'r', body: 'b', ttlTurns: 21 },
        'reminder.ttlTurns',
      ],
      ['ttlTurns 0', { id: 'r', body: 'b', ttlTurns: 0 }, 'reminder.ttlTurns'],
      ['ttlTurns negative', { id: 'r', body: 'b', ttlTurns: -3 }, 'reminder.ttlTurns'],
      ['roleHint 32', { id: 'r', body: 'b', roleHint: 'r'.repeat(32) }, undefined],
      ['roleHint 33', { id: 'r', body: 'b', roleHint: 'r'.repeat(33) }, 'reminder.roleHint'],
      ['source 256', { id: 'r', body: 'b', source: 's'.repeat(256) }, undefined],
      ['source 257', { id: 'r', body: 'b', source: 's'.repeat(257) }, 'reminder.source'],
      ['metadata small', { id: 'r', body: 'b', metadata: { a: 1 } }, undefined],
      [
        'metadata over 16 KiB',
        { id: 'r', body: 'b', metadata: { a: 'x'.repeat(16 * 1024) } },
        'reminder.metadata',
      ],
    ];
    for (const [name, reminder, field] of cases) {
      it(`R9: ${name}`, async () => {
        const h = harness();
        await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
        const result = h.inject('t1', reminder);
        if (field === undefined) {
          await expect(result).resolves.toBeDefined();
        } else {
          const err = (await rejection(result)) as ReminderError;
          expect(err.code).toBe('INVALID_ARGUMENT');
          expect(err.fieldViolations.map((v) => v.field)).toEqual([field]);
        }
      });
    }

    it('R9: a missing reminder is reported on `reminder`', async () => {
      const h = harness();
      const err = (await rejection(
        h.service.injectTaskReminder(
          create(InjectTaskReminderRequestSchema, { taskId: 't' }),
          h.ctx,
        ),
      )) as ReminderError;
      expect(err.fieldViolations).toEqual([{ field: 'reminder', description: 'is required' }]);
    });

    it('R9: cancel requires taskId and reminderId', async () => {
      const h = harness();
      const err = (await rejection(
        h.service.cancelTaskReminder(create(CancelTaskReminderRequestSchema, {}), h.ctx),
      )) as ReminderError;
      expect(err.fieldViolations.map((v) => v.field)).toEqual(['taskId', 'reminderId']);
    });

    it('R9: limits are options of the service', async () => {
      const h = harness({ limits: { maxBodyChars: 5, maxTtlTurns: 2 } });
      await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
      const err = (await rejection(
        h.inject('t1', { id: 'r', body: '123456', ttlTurns: 3 }),
      )) as ReminderError;
      expect(err.fieldViolations.map((v) => v.field)).toEqual([
        'reminder.body',
        'reminder.ttlTurns',
      ]);
    });
  });
});

describe('task states', () => {
  for (const state of [TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]) {
    it(`R10: ${TaskState[state]} accepts reminders`, async () => {
      const h = harness();
      await h.saveTask('t1', state);
      const res = await h.inject('t1', { id: 'r1', body: 'b' });
      expect(res.record?.state).toBe(ReminderState.PENDING);
      expect(res.taskState).toBe(TaskState[state]);
    });
  }

  for (const state of [TaskState.TASK_STATE_INPUT_REQUIRED, TaskState.TASK_STATE_AUTH_REQUIRED]) {
    it(`R11: ${TaskState[state]} accepts and holds reminders until a turn runs`, async () => {
      const h = harness();
      const task = await h.saveTask('t1', state);
      await h.inject('t1', { id: 'r1', body: 'b' });
      const listed = await h.list('t1');
      expect(listed.reminders.map((r) => r.state)).toEqual([ReminderState.PENDING]);
      const { bus } = h.openBus('t1');
      const turn = await h.service.beginTurn(h.requestContext(task), bus);
      expect(turn.reminders.map((r) => r.id)).toEqual(['r1']);
    });
  }

  for (const state of [
    TaskState.TASK_STATE_COMPLETED,
    TaskState.TASK_STATE_FAILED,
    TaskState.TASK_STATE_CANCELED,
    TaskState.TASK_STATE_REJECTED,
  ]) {
    it(`R12: ${TaskState[state]} refuses with TASK_TERMINAL`, async () => {
      const h = harness();
      await h.saveTask('t1', state);
      const err = (await rejection(h.inject('t1', { id: 'r1', body: 'b' }))) as ReminderError;
      expect(err.code).toBe('TASK_TERMINAL');
      expect(err.metadata).toEqual({ taskId: 't1', taskState: TaskState[state] });
      expect(err.a2aReason).toBe('UNSUPPORTED_OPERATION');
    });
  }

  it('R12: a task whose reminders were ended refuses new ones even before its store shows it', async () => {
    const h = harness();
    const task = await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    const { bus } = h.openBus('t1');
    await h.service.endTask(h.requestContext(task), bus, TaskState.TASK_STATE_COMPLETED);
    const err = (await rejection(h.inject('t1', { id: 'r1', body: 'b' }))) as ReminderError;
    expect(err.code).toBe('TASK_TERMINAL');
    expect(err.metadata.taskState).toBe('TASK_STATE_COMPLETED');
  });
});
