import { TaskState } from '@a2a-js/sdk';
import { TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import {
  bindingServersPerTest,
  describeCoreRoundTrip,
  recordingContextBuilder,
  saveTask,
} from '@a2a-reminders/test-support';
import { describe, expect, it } from 'vitest';
import { call, restArm, restRouterArm } from './testing/app.js';

describeCoreRoundTrip(restArm);
describeCoreRoundTrip(restRouterArm);

// Both ways of mounting it: one middleware (the README's), and ours before the SDK's.
for (const arm of [restArm, restRouterArm]) {
  /** The real core behind the binding, next to the SDK's handler. */
  const { start } = bindingServersPerTest(arm);

  describe(`${arm.name} wire with the real core`, () => {
    it('refuses a terminal task with TASK_TERMINAL (400 FAILED_PRECONDITION)', async () => {
      const { taskStore, endpoint } = await start();
      await saveTask(taskStore, { id: 'done', state: TaskState.TASK_STATE_COMPLETED });
      const raw = await call(
        'POST',
        `${endpoint}/tasks/done:injectReminder`,
        JSON.stringify({ reminder: { id: 'r1', body: 'b' } }),
      );
      expect(raw.status).toBe(400);
      expect(raw.json).toMatchObject({
        error: {
          status: 'FAILED_PRECONDITION',
          details: [{ reason: 'UNSUPPORTED_OPERATION' }, { reason: 'TASK_TERMINAL' }],
        },
      });
    });

    it('answers GetTask of another user 404, and serves the /{tenant} form of the list', async () => {
      const { taskStore, endpoint } = await start();
      await saveTask(taskStore, { id: 'mine', state: TaskState.TASK_STATE_WORKING, user: 'alice' });
      await saveTask(taskStore, {
        id: 'acme-task',
        state: TaskState.TASK_STATE_WORKING,
        tenant: 'acme',
      });
      // The SDK's GetTask, reached through the mount: the owner's answer, and another user's 404.
      const aliceGet = await call('GET', `${endpoint}/tasks/mine`, undefined, {
        'x-user': 'alice',
      });
      expect(aliceGet.status).toBe(200);
      expect(aliceGet.json).toMatchObject({ id: 'mine', status: { state: 'TASK_STATE_WORKING' } });
      const bobGet = await call('GET', `${endpoint}/tasks/mine`, undefined, { 'x-user': 'bob' });
      expect(bobGet.status).toBe(404);
      expect(bobGet.json).toMatchObject({ error: { code: 404 } });
      const tenantList = await call('GET', `${endpoint}/acme/tasks/acme-task/reminders`);
      expect(tenantList.status).toBe(200);
    });

    it("builds the SDK's calls and the reminder calls with the contextBuilder it was given", async () => {
      const { contextBuilder, seen } = recordingContextBuilder();
      const { taskStore, endpoint } = await start({ overrides: { contextBuilder } });
      await saveTask(taskStore, { id: 'task-1', state: TaskState.TASK_STATE_WORKING });
      const get = await call('GET', `${endpoint}/tasks/task-1`, undefined, { 'x-call': 'GetTask' });
      const list = await call('GET', `${endpoint}/tasks/task-1/reminders`, undefined, {
        'x-call': 'ListTaskReminders',
      });
      expect([get.status, list.status]).toEqual([200, 200]);
      expect(seen).toContain('GetTask');
      expect(seen).toContain('ListTaskReminders');
    });

    it('answers a call without the extension activated with 400 EXTENSION_SUPPORT_REQUIRED', async () => {
      const { taskStore, endpoint } = await start();
      await saveTask(taskStore, { id: 'task-1', state: TaskState.TASK_STATE_WORKING });
      const raw = await call('GET', `${endpoint}/tasks/task-1/reminders`, undefined, {
        'A2A-Extensions': 'urn:something-else',
      });
      expect(raw.status).toBe(400);
      expect(raw.json.error).toMatchObject({ details: [{ reason: 'EXTENSION_SUPPORT_REQUIRED' }] });
      expect(raw.headers.get('a2a-extensions')).toBeNull();
      const ok = await call('GET', `${endpoint}/tasks/task-1/reminders`);
      expect(ok.headers.get('a2a-extensions')).toBe(TASK_REMINDERS_EXTENSION_URI);
    });

    it('answers an unauthenticated caller with HTTP 401 when the service requires authentication', async () => {
      const { taskStore, endpoint } = await start({ requireAuthentication: true });
      await saveTask(taskStore, { id: 'task-1', state: TaskState.TASK_STATE_WORKING });
      const raw = await call('GET', `${endpoint}/tasks/task-1/reminders`);
      expect(raw.status).toBe(401);
      expect(raw.json.error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED' });
    });
  });
}
