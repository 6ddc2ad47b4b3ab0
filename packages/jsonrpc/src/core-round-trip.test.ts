import { TaskState } from '@a2a-js/sdk';
import { TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import {
  bindingServersPerTest,
  describeCoreRoundTrip,
  recordingContextBuilder,
  saveTask,
} from '@a2a-reminders/test-support';
import { describe, expect, it } from 'vitest';
import { jsonRpcArm, jsonRpcTwoHandlersArm, post, rpcBody } from './testing/app.js';

describeCoreRoundTrip(jsonRpcArm);
describeCoreRoundTrip(jsonRpcTwoHandlersArm);

// Both ways of mounting it: one middleware (the README's), and ours before the SDK's.
for (const arm of [jsonRpcArm, jsonRpcTwoHandlersArm]) {
  /** The real core behind the binding, next to the SDK's handler. */
  const { start } = bindingServersPerTest(arm);

  describe(`${arm.name} wire with the real core`, () => {
    it('refuses a terminal task with TASK_TERMINAL (-32004)', async () => {
      const { taskStore, endpoint } = await start();
      await saveTask(taskStore, { id: 'done', state: TaskState.TASK_STATE_COMPLETED });
      const raw = await post(
        endpoint,
        rpcBody('InjectTaskReminder', { taskId: 'done', reminder: { id: 'r1', body: 'b' } }),
      );
      expect((raw.json.error as { code: number }).code).toBe(-32004);
    });

    it('answers GetTask for a task of another user with -32001, as the reminder rpcs do', async () => {
      const { taskStore, endpoint } = await start();
      await saveTask(taskStore, { id: 'mine', state: TaskState.TASK_STATE_WORKING, user: 'alice' });
      const bobGet = await post(endpoint, rpcBody('GetTask', { id: 'mine' }), { 'x-user': 'bob' });
      expect((bobGet.json.error as { code: number }).code).toBe(-32001);
    });

    it("builds the SDK's calls and the reminder calls with the contextBuilder it was given", async () => {
      const { contextBuilder, seen } = recordingContextBuilder();
      const { taskStore, endpoint } = await start({ overrides: { contextBuilder } });
      await saveTask(taskStore, { id: 'task-1', state: TaskState.TASK_STATE_WORKING });
      const get = await post(endpoint, rpcBody('GetTask', { id: 'task-1' }), {
        'x-call': 'GetTask',
      });
      const list = await post(endpoint, rpcBody('ListTaskReminders', { taskId: 'task-1' }), {
        'x-call': 'ListTaskReminders',
      });
      expect(get.json).toMatchObject({ result: { id: 'task-1' } });
      // An empty list is `{}` in ProtoJSON.
      expect(list.json).toMatchObject({ result: {} });
      expect(list.json).not.toHaveProperty('error');
      expect(seen).toContain('GetTask');
      expect(seen).toContain('ListTaskReminders');
    });

    it('answers a call without the extension activated with -32008', async () => {
      const { taskStore, endpoint } = await start();
      await saveTask(taskStore, { id: 'task-1', state: TaskState.TASK_STATE_WORKING });
      const raw = await post(endpoint, rpcBody('ListTaskReminders', { taskId: 'task-1' }), {
        'A2A-Extensions': 'urn:something-else',
      });
      expect(raw.json.error).toMatchObject({ code: -32008 });
      expect(raw.headers.get('a2a-extensions')).toBeNull();
      const ok = await post(endpoint, rpcBody('ListTaskReminders', { taskId: 'task-1' }, 2));
      expect(ok.headers.get('a2a-extensions')).toBe(TASK_REMINDERS_EXTENSION_URI);
    });

    it('answers an unauthenticated caller with HTTP 401 when the service requires authentication', async () => {
      const { taskStore, endpoint } = await start({ requireAuthentication: true });
      await saveTask(taskStore, { id: 'task-1', state: TaskState.TASK_STATE_WORKING });
      const raw = await post(endpoint, rpcBody('ListTaskReminders', { taskId: 'task-1' }));
      expect(raw.status).toBe(401);
      expect(raw.json.error).toMatchObject({ code: -32000 });
    });
  });
}
