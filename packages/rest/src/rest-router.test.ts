import { TaskState } from '@a2a-js/sdk';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import { UserBuilder } from '@a2a-js/sdk/server/express';
import type { ReminderService } from '@a2a-reminders/core';
import { TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import { saveTask } from '@a2a-reminders/test-support';
import type { Request, Response } from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { restReminderRouter } from './rest-router.js';
import { call, startFakeServer } from './testing/app.js';

type Server = Awaited<ReturnType<typeof startFakeServer>>;
let server: Server | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const reminderBody = JSON.stringify({ reminder: { id: 'r1', body: 'budget is low', ttlTurns: 2 } });

describe('restReminderRouter', () => {
  it('serves POST /tasks/{task_id}:injectReminder with ProtoJSON and application/a2a+json', async () => {
    server = await startFakeServer();
    const res = await call('POST', `${server.baseUrl}/tasks/task-1:injectReminder`, reminderBody);
    expect(res.status).toBe(200);
    // Labelled as express's res.json labels the SDK's answers, the length exact.
    expect(res.headers.get('content-type')).toBe('application/a2a+json; charset=utf-8');
    expect(res.headers.get('content-length')).toBe(
      String(Buffer.byteLength(JSON.stringify(res.json))),
    );
    expect(res.headers.get('a2a-extensions')).toBe(TASK_REMINDERS_EXTENSION_URI);
    expect(res.json).toEqual({
      record: {
        taskId: 'task-1',
        reminder: { id: 'r1', body: 'budget is low', ttlTurns: 2 },
        state: 'REMINDER_STATE_PENDING',
      },
      taskState: 'TASK_STATE_WORKING',
    });
  });

  it('serves GET …/reminders and POST …/reminders/{id}:cancel from the descriptor', async () => {
    server = await startFakeServer();
    const list = await call('GET', `${server.baseUrl}/tasks/t%3A1/reminders`);
    expect(list.json).toEqual({ reminders: [{ taskId: 't:1', state: 'REMINDER_STATE_ACTIVE' }] });
    const cancel = await call('POST', `${server.baseUrl}/tasks/t1/reminders/r1:cancel`, '{}');
    expect(cancel.json).toEqual({ record: { taskId: 't1', state: 'REMINDER_STATE_CANCELLED' } });
    expect(server.calls.map((c) => [c.method, c.request])).toMatchObject([
      ['listTaskReminders', { taskId: 't:1' }],
      ['cancelTaskReminder', { taskId: 't1', reminderId: 'r1' }],
    ]);
  });

  it('takes the tenant from the /{tenant} form, winning over the body, like the SDK', async () => {
    server = await startFakeServer();
    await call(
      'POST',
      `${server.baseUrl}/acme/tasks/task-1:injectReminder`,
      JSON.stringify({ tenant: 'other', reminder: { id: 'r', body: 'b' } }),
      { 'x-user': 'alice' },
    );
    await call('GET', `${server.baseUrl}/acme/tasks/task-1/reminders`);
    await call('POST', `${server.baseUrl}/tasks/task-1:injectReminder`, reminderBody);
    expect(
      server.calls.map((c) => [c.tenant, c.request.tenant, c.request.taskId, c.userName]),
    ).toEqual([
      ['acme', 'acme', 'task-1', 'alice'],
      ['acme', 'acme', 'task-1', ''],
      [undefined, '', 'task-1', ''],
    ]);
  });

  it('passes stock SDK routes through on the same prefix (GetTask, tenant form)', async () => {
    server = await startFakeServer();
    await saveTask(server.taskStore, { id: 'task-9', state: TaskState.TASK_STATE_WORKING });
    await saveTask(server.taskStore, {
      id: 'task-t',
      state: TaskState.TASK_STATE_WORKING,
      tenant: 'acme',
    });
    const get = await call('GET', `${server.baseUrl}/tasks/task-9`);
    expect(get.status).toBe(200);
    expect(get.json.id).toBe('task-9');
    const tenantGet = await call('GET', `${server.baseUrl}/acme/tasks/task-t`);
    expect(tenantGet.json.id).toBe('task-t');
    const wrongTenant = await call('GET', `${server.baseUrl}/tasks/task-t`);
    expect(wrongTenant.status).toBe(404);
    expect(server.calls).toHaveLength(0);
  });

  it('lets a wrong verb on our path fall through to the SDK', async () => {
    server = await startFakeServer();
    // The SDK reads it as GetTask of a task named `t1:injectReminder`.
    const res = await call('GET', `${server.baseUrl}/tasks/t1:injectReminder`);
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ error: { details: [{ reason: 'TASK_NOT_FOUND' }] } });
    expect(server.calls).toHaveLength(0);
  });

  it('passes a method no rule names (HEAD, PUT) on untouched', async () => {
    server = await startFakeServer();
    // Raw fetch: a HEAD answer has no body and express's own 404 page is HTML, not JSON.
    const head = await fetch(`${server.baseUrl}/tasks/t1/reminders`, {
      method: 'HEAD',
      headers: { 'A2A-Version': '1.0' },
    });
    const put = await fetch(`${server.baseUrl}/tasks/t1:injectReminder`, {
      method: 'PUT',
      headers: { 'A2A-Version': '1.0', 'Content-Type': 'application/json' },
      body: reminderBody,
    });
    // Neither reached the reminder service; both went on to express's final handler
    // (no route of the SDK's either).
    expect(server.calls).toHaveLength(0);
    expect(head.status).toBe(404);
    expect(put.status).toBe(404);
    expect(await put.text()).toContain('Cannot PUT');
  });

  it('hands a request it does not route on synchronously, not an event-loop turn later', () => {
    const handler = restReminderRouter({
      // Never called: no rule routes these requests.
      reminders: {} as ReminderService,
      requestHandler: {} as A2ARequestHandler,
      userBuilder: UserBuilder.noAuthentication,
    });
    const passed: string[] = [];
    for (const [method, path] of [
      ['GET', '/tasks/t1'],
      ['POST', '/message:send'],
      ['DELETE', '/tasks/t1/pushNotificationConfigs/c1'],
    ] as const) {
      handler({ method, path } as Request, {} as Response, () => passed.push(method));
    }
    expect(passed).toEqual(['GET', 'POST', 'DELETE']);
  });

  it('rejects a request without A2A-Version 1.0 with VERSION_NOT_SUPPORTED, like the SDK', async () => {
    server = await startFakeServer();
    const res = await call('POST', `${server.baseUrl}/tasks/t1:injectReminder`, reminderBody, {
      'A2A-Version': '',
    });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      error: {
        code: 400,
        status: 'FAILED_PRECONDITION',
        details: [{ reason: 'VERSION_NOT_SUPPORTED' }],
      },
    });
    expect(server.calls).toHaveLength(0);
  });
});

describe('path and body agree (R56)', () => {
  const violationsOf = (json: Record<string, unknown>) =>
    ((json.error as { details?: Array<{ fieldViolations?: unknown[] }> }).details ?? []).flatMap(
      (d) => d.fieldViolations ?? [],
    );

  it('refuses a body taskId other than the path task id, with a violation on taskId', async () => {
    server = await startFakeServer();
    for (const taskId of ['other', 'task-1 ', 5]) {
      for (const name of ['taskId', 'task_id']) {
        const res = await call(
          'POST',
          `${server.baseUrl}/tasks/task-1:injectReminder`,
          JSON.stringify({ [name]: taskId, reminder: { id: 'r', body: 'b' } }),
        );
        expect([name, taskId, res.status, violationsOf(res.json)]).toEqual([
          name,
          taskId,
          400,
          [{ field: 'taskId', description: 'must be the value in the URL path, or left out' }],
        ]);
      }
    }
    expect(server.calls).toHaveLength(0);
  });

  it('refuses a cancel whose body names another reminder or task, and a list query naming another task', async () => {
    server = await startFakeServer();
    const cancel = await call(
      'POST',
      `${server.baseUrl}/acme/tasks/t1/reminders/r1:cancel`,
      JSON.stringify({ taskId: 't2', reminderId: 'r2', tenant: 'other' }),
    );
    expect([
      cancel.status,
      violationsOf(cancel.json).map((v) => (v as { field: string }).field),
    ]).toEqual([400, ['taskId', 'reminderId']]);
    for (const query of ['taskId=t2', 'taskId=t1&task_id=t2', 'task_id=t2&taskId=t1']) {
      const list = await call('GET', `${server.baseUrl}/tasks/t1/reminders?${query}`);
      expect([
        query,
        list.status,
        violationsOf(list.json).map((v) => (v as { field: string }).field),
      ]).toEqual([query, 400, ['taskId']]);
    }
    // Both names of a field that is not in the path: the parameter given twice.
    const twice = await call('GET', `${server.baseUrl}/tasks/t1/reminders?pageSize=5&page_size=7`);
    expect([
      twice.status,
      violationsOf(twice.json).map((v) => (v as { field: string }).field),
    ]).toEqual([400, ['pageSize']]);
    expect(server.calls).toHaveLength(0);
  });

  it('accepts the path value repeated, null, "" (unset), or left out; the tenant of the path wins', async () => {
    server = await startFakeServer();
    const inject = (body: Record<string, unknown>) =>
      call(
        'POST',
        `${server?.baseUrl}/acme/tasks/task-1:injectReminder`,
        JSON.stringify({ ...body, reminder: { id: 'r', body: 'b' } }),
      );
    const bodies = [
      { taskId: 'task-1' },
      { task_id: 'task-1' },
      { taskId: null },
      { taskId: '' },
      {},
    ];
    for (const body of bodies) {
      expect((await inject({ ...body, tenant: 'other' })).status).toBe(200);
    }
    const cancel = await call(
      'POST',
      `${server.baseUrl}/tasks/t1/reminders/r1:cancel`,
      JSON.stringify({ taskId: 't1', reminderId: 'r1' }),
    );
    expect(cancel.status).toBe(200);
    expect(server.calls.map((c) => [c.tenant, c.request.taskId])).toEqual([
      ['acme', 'task-1'],
      ['acme', 'task-1'],
      ['acme', 'task-1'],
      ['acme', 'task-1'],
      ['acme', 'task-1'],
      [undefined, 't1'],
    ]);
  });
});

describe('malformed input', () => {
  it('answers malformed JSON with a 400 Status body and keeps serving', async () => {
    server = await startFakeServer();
    const res = await call('POST', `${server.baseUrl}/tasks/t1:injectReminder`, '{"reminder":');
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      error: { code: 400, status: 'INVALID_ARGUMENT', message: 'Invalid JSON payload.' },
    });
    const again = await call('POST', `${server.baseUrl}/tasks/t1:injectReminder`, reminderBody);
    expect(again.status).toBe(200);
  });

  it('answers a body over maxBodyBytes with 413 and a Status body', async () => {
    server = await startFakeServer({ maxBodyBytes: 1024 });
    const body = JSON.stringify({ reminder: { id: 'r', body: 'x'.repeat(4000) } });
    const res = await call('POST', `${server.baseUrl}/tasks/t1:injectReminder`, body);
    expect(res.status).toBe(413);
    expect(res.json).toMatchObject({ error: { code: 413, status: 'INVALID_ARGUMENT' } });
    expect(server.calls).toHaveLength(0);
  });

  it('answers a wrong content type with 400 CONTENT_TYPE_NOT_SUPPORTED, like the SDK', async () => {
    server = await startFakeServer();
    const res = await call('POST', `${server.baseUrl}/tasks/t1:injectReminder`, reminderBody, {
      'Content-Type': 'text/plain',
    });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      error: { status: 'INVALID_ARGUMENT', details: [{ reason: 'CONTENT_TYPE_NOT_SUPPORTED' }] },
    });
  });

  it('answers a body that is not an object, or fields of the wrong type, with INVALID_ARGUMENT', async () => {
    server = await startFakeServer();
    const array = await call('POST', `${server.baseUrl}/tasks/t1:injectReminder`, '[1]');
    expect(array.status).toBe(400);
    expect(array.json).toMatchObject({
      error: {
        status: 'INVALID_ARGUMENT',
        details: [{ '@type': 'type.googleapis.com/google.rpc.BadRequest' }],
      },
    });
    const wrongType = await call(
      'POST',
      `${server.baseUrl}/tasks/t1:injectReminder`,
      JSON.stringify({ reminder: 'text' }),
    );
    expect(wrongType.status).toBe(400);
    expect(server.calls).toHaveLength(0);
  });

  it('answers a malformed percent-encoding in the path with INVALID_ARGUMENT', async () => {
    server = await startFakeServer();
    const res = await call('GET', `${server.baseUrl}/tasks/%E0%A4%A/reminders`);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      error: { status: 'INVALID_ARGUMENT', details: [{ fieldViolations: [{ field: 'taskId' }] }] },
    });
  });
});
