import type { JsonValue } from '@bufbuild/protobuf';
import { expect } from 'vitest';
import { errorSummary } from '../harness/observe.js';
import { rawCall } from '../harness/raw-call.js';
import { ACTIVATED_HEADERS } from '../harness/raw-wire.js';
import { as } from '../harness/users.js';
import { verifies } from '../harness/verifies.js';
import { rejection } from '../harness/wait.js';

/** Replaces a task id everywhere in a JSON value, so two errors about different ids can be compared byte for byte. */
function withoutId(value: JsonValue, taskId: string): string {
  return JSON.stringify(value).split(taskId).join('{taskId}');
}

verifies('R7-scoping', async ({ wire }) => {
  const aliceTask = await wire.tasks.create({ user: 'alice' });
  const tenantTask = await wire.tasks.create({ tenant: 'acme' });
  const reminder = { id: 'r1', body: 'hello' };
  const bob = { ...ACTIVATED_HEADERS, ...as('bob') };

  const foreign = await rawCall(wire, 'InjectTaskReminder', { taskId: aliceTask, reminder }, bob);
  const missing = await rawCall(
    wire,
    'InjectTaskReminder',
    { taskId: 'no-such-task', reminder },
    bob,
  );
  expect(foreign.ok || missing.ok).toBe(false);
  if (foreign.ok || missing.ok) return;
  expect(foreign.error.code).toBe('TASK_NOT_FOUND');
  expect(foreign.error.message).toBe(`Task not found: ${aliceTask}`);
  expect(foreign.error.metadata).toEqual({ taskId: aliceTask });
  // Same bytes either way, once the id itself is set aside.
  expect(withoutId(errorSummary(foreign.error), aliceTask)).toBe(
    withoutId(errorSummary(missing.error), 'no-such-task'),
  );
  expect(withoutId(foreign.wire as unknown as JsonValue, aliceTask)).toBe(
    withoutId(missing.wire as unknown as JsonValue, 'no-such-task'),
  );

  // Anonymous callers and other tenants do not see the task either.
  const anonymous = await rejection(
    wire.client.injectTaskReminder({ taskId: aliceTask, reminder }),
  );
  expect(errorSummary(anonymous)).toMatchObject({ code: 'TASK_NOT_FOUND' });
  for (const tenant of ['', 'other']) {
    const error = await rejection(
      wire.client.injectTaskReminder({ tenant, taskId: tenantTask, reminder }),
    );
    expect(errorSummary(error)).toMatchObject({ code: 'TASK_NOT_FOUND' });
  }

  // The owners' calls succeed.
  const alice = wire.clientWith(as('alice'));
  expect((await alice.injectTaskReminder({ taskId: aliceTask, reminder })).record?.taskId).toBe(
    aliceTask,
  );
  const inTenant = await wire.client.injectTaskReminder({
    tenant: 'acme',
    taskId: tenantTask,
    reminder,
  });
  expect(inTenant.record?.taskId).toBe(tenantTask);
  expect((await alice.listTaskReminders({ taskId: aliceTask })).reminders).toHaveLength(1);
});

verifies('W7-caller-resolution', async ({ wire }) => {
  const taskId = await wire.tasks.create({ user: 'alice', tenant: 'acme' });
  const callers = [
    { user: 'alice', tenant: 'acme' },
    { user: 'alice', tenant: '' },
    { user: 'alice', tenant: 'other' },
    { user: 'bob', tenant: 'acme' },
    { user: undefined, tenant: 'acme' },
  ];
  for (const caller of callers) {
    const headers = caller.user === undefined ? {} : as(caller.user);
    const sdkSees = await wire.sdk
      .getTask({ tenant: caller.tenant, id: taskId }, { serviceParameters: headers })
      .then(() => 'found')
      .catch(() => 'not found');
    const remindersSee = await wire
      .clientWith(headers)
      .listTaskReminders({ tenant: caller.tenant, taskId })
      .then(() => 'found')
      .catch((error: unknown) =>
        (errorSummary(error) as { code?: string }).code === 'TASK_NOT_FOUND'
          ? 'not found'
          : String(error),
      );
    expect({ caller, remindersSee }).toEqual({ caller, remindersSee: sdkSees });
  }
  // The owner, and only the owner, sees it.
  const owner = await wire.clientWith(as('alice')).listTaskReminders({ tenant: 'acme', taskId });
  expect(owner.reminders).toEqual([]);
});
