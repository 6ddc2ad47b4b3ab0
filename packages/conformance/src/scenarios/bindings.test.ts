import { TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import { reminderRpcNames, reminderRpcs } from '@a2a-reminders/proto';
import type { JsonObject } from '@bufbuild/protobuf';
import { expect } from 'vitest';
import { fillPath } from '../harness/raw-call.js';
import { ACTIVATED_HEADERS, rawHttp, rawJsonRpc } from '../harness/raw-wire.js';
import { verifies } from '../harness/verifies.js';

verifies('W1-jsonrpc-method-names', async ({ wire }) => {
  const taskId = await wire.tasks.create();
  const params: Record<string, JsonObject> = {
    InjectTaskReminder: { taskId, reminder: { id: 'r', body: 'b' } },
    ListTaskReminders: { taskId },
    CancelTaskReminder: { taskId, reminderId: 'r' },
  };
  // The method names are the descriptor's rpc names, whatever order they are declared in.
  expect([...reminderRpcNames].sort()).toEqual(Object.keys(params).sort());
  for (const name of reminderRpcNames) {
    const answer = await rawJsonRpc(wire.endpoints, {
      jsonrpc: '2.0',
      id: name,
      method: name,
      params: params[name],
    });
    expect({ name, error: answer.json.error }).toEqual({ name, error: undefined });
    expect(answer.json.id).toBe(name);
  }
  // Other spellings are not ours: the SDK answers them (method not found).
  const lower = await rawJsonRpc(wire.endpoints, {
    jsonrpc: '2.0',
    id: 1,
    method: 'injectTaskReminder',
    params: params.InjectTaskReminder,
  });
  expect((lower.json.error as JsonObject).code).toBe(-32601);
  // The SDK's own methods pass through untouched.
  const getTask = await rawJsonRpc(wire.endpoints, {
    jsonrpc: '2.0',
    id: 2,
    method: 'GetTask',
    params: { id: taskId },
  });
  expect((getTask.json.result as JsonObject).id).toBe(taskId);
});

verifies('W2-rest-routes', async ({ wire }) => {
  const plain = await wire.tasks.create();
  const tenanted = await wire.tasks.create({ tenant: 'acme' });
  const requests: Record<string, JsonObject> = {
    InjectTaskReminder: { reminder: { id: 'r', body: 'b' } },
    ListTaskReminders: {},
    CancelTaskReminder: { reminderId: 'r' },
  };
  for (const rpc of reminderRpcs) {
    // Every google.api.http rule of the descriptor is served: the primary and the /{tenant} form.
    for (const binding of rpc.http) {
      const hasTenant = binding.path.segments.some(
        (s) => s.kind === 'variable' && s.jsonName === 'tenant',
      );
      const request = {
        ...requests[rpc.name],
        taskId: hasTenant ? tenanted : plain,
        ...(hasTenant ? { tenant: 'acme' } : {}),
      };
      const { path, rest } = fillPath(binding, request);
      const answer = await rawHttp(
        wire.endpoints,
        binding.verb.toUpperCase(),
        `${wire.endpoints.restUrl}${path}`,
        {
          ...(binding.body === '' ? {} : { body: JSON.stringify(rest) }),
          headers: {
            ...ACTIVATED_HEADERS,
            ...(binding.body === '' ? {} : { 'Content-Type': 'application/json' }),
          },
        },
      );
      expect({ rpc: rpc.name, route: binding.path.source, status: answer.status }).toEqual({
        rpc: rpc.name,
        route: binding.path.source,
        status: 200,
      });
    }
  }
  // The tenant comes from the path: the tenanted task is not found without it.
  const noTenant = await rawHttp(
    wire.endpoints,
    'GET',
    `${wire.endpoints.restUrl}/tasks/${tenanted}/reminders`,
    {
      headers: { ...ACTIVATED_HEADERS },
    },
  );
  expect(noTenant.status).toBe(404);
  // Routes that are not ours pass to the SDK.
  const getTask = await rawHttp(
    wire.endpoints,
    'GET',
    `${wire.endpoints.restUrl}/acme/tasks/${tenanted}`,
    {
      headers: { 'A2A-Version': '1.0' },
    },
  );
  expect([getTask.status, getTask.json.id]).toEqual([200, tenanted]);
});

verifies('W6-client-headers', async ({ wire }) => {
  const taskId = await wire.tasks.create();
  const client = wire.clientWith({ 'x-client-wide': 'one' });
  const calls = [
    () =>
      client.injectTaskReminder(
        { taskId, reminder: { id: 'r', body: 'b' } },
        { headers: { 'x-per-call': 'two' } },
      ),
    () => client.listTaskReminders({ taskId }, { headers: { 'x-per-call': 'two' } }),
    () =>
      client.cancelTaskReminder({ taskId, reminderId: 'r' }, { headers: { 'x-per-call': 'two' } }),
  ];
  for (const call of calls) {
    const before = wire.stack.seen.length;
    await call();
    const received = wire.stack.seen.slice(before);
    expect(received).toHaveLength(1);
    const headers = received[0]?.headers ?? {};
    expect(headers['a2a-version']).toBe('1.0');
    expect((headers['a2a-extensions'] ?? '').split(',').map((s) => s.trim())).toContain(
      TASK_REMINDERS_EXTENSION_URI,
    );
    expect([headers['x-client-wide'], headers['x-per-call']]).toEqual(['one', 'two']);
  }
  // A caller that activates other extensions itself, in either spelling, client-wide
  // and per call: every value is kept, the URI is added, and the call is activated.
  for (const [clientName, callName] of [
    ['A2A-Extensions', 'a2a-extensions'],
    ['a2a-extensions', 'A2A-Extensions'],
  ] as const) {
    const own = wire.clientWith({ [clientName]: 'urn:example:client' });
    const before = wire.stack.seen.length;
    const listed = await own.listTaskReminders(
      { taskId },
      { headers: { [callName]: 'urn:example:call' } },
    );
    expect(listed.reminders.map((r) => r.reminder?.id)).toEqual(['r']);
    const sent = wire.stack.seen.slice(before)[0]?.headers['a2a-extensions'] ?? '';
    expect(sent.split(',').map((s) => s.trim())).toEqual([
      'urn:example:client',
      'urn:example:call',
      TASK_REMINDERS_EXTENSION_URI,
    ]);
  }
});

verifies('W9-client-options', async ({ wire }) => {
  const taskId = await wire.tasks.create();
  const controller = new AbortController();
  const reason = new Error('caller gave up');
  controller.abort(reason);
  await expect(
    wire.client.injectTaskReminder(
      { taskId, reminder: { id: 'r', body: 'b' } },
      { signal: controller.signal },
    ),
  ).rejects.toBe(reason);
  expect((await wire.client.listTaskReminders({ taskId })).reminders).toEqual([]);
});
