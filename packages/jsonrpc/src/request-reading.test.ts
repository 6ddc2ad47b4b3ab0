import { TaskState } from '@a2a-js/sdk';
import { bindingServersPerTest, saveTask } from '@a2a-reminders/test-support';
import { describe, expect, it } from 'vitest';
import { jsonRpcArm, post } from './testing/app.js';

/**
 * Issue 8 §1 and §4 over JSON-RPC with the real core: values the service
 * cannot store are typed errors that leave the task listable (R41–R44), and
 * the order of checks does not depend on the body (R45).
 */

const servers = bindingServersPerTest(jsonRpcArm);

async function start(requireAuthentication = false) {
  const server = await servers.start({ requireAuthentication });
  await saveTask(server.taskStore, { id: 'task-1', state: TaskState.TASK_STATE_WORKING });
  await saveTask(server.taskStore, {
    id: 'task-a',
    state: TaskState.TASK_STATE_WORKING,
    user: 'alice',
  });
  return server.endpoint;
}

/** A JSON-RPC call with `params` written as raw JSON text (so it can hold 1e309 or "\ud800"). */
function rpc(method: string, params: string): string {
  return `{"jsonrpc":"2.0","id":1,"method":"${method}","params":${params}}`;
}

interface Answer {
  readonly status: number;
  readonly code: number | undefined;
  readonly fields: string[];
}

async function send(
  endpoint: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const raw = await post(endpoint, body, headers);
  const error = raw.json.error as { code: number; data?: unknown[] } | undefined;
  const badRequest = (error?.data ?? []).find(
    (d) => (d as { '@type': string })['@type'] === 'type.googleapis.com/google.rpc.BadRequest',
  ) as { fieldViolations: Array<{ field: string }> } | undefined;
  return {
    status: raw.status,
    code: error?.code,
    fields: badRequest?.fieldViolations.map((v) => v.field) ?? [],
  };
}

async function listed(endpoint: string, taskId = 'task-1'): Promise<unknown> {
  const raw = await post(endpoint, rpc('ListTaskReminders', JSON.stringify({ taskId })));
  expect(raw.status).toBe(200);
  return (raw.json.result as { reminders?: unknown[] }).reminders ?? [];
}

const inject = (reminder: string) =>
  rpc('InjectTaskReminder', `{"taskId":"task-1","reminder":${reminder}}`);

describe('JSON-RPC: a request never poisons a task', () => {
  it('R41: 1e309 in metadata is -32602 on reminder.metadata.x, and the task stays listable', async () => {
    const endpoint = await start();
    const answer = await send(
      endpoint,
      inject('{"id":"inf-1","body":"hello","metadata":{"x":1e309}}'),
    );
    expect(answer).toEqual({ status: 200, code: -32602, fields: ['reminder.metadata.x'] });
    const deep = await send(
      endpoint,
      inject('{"id":"inf-2","body":"hello","metadata":{"a":{"b":[1,-1e400]}}}'),
    );
    expect(deep.fields).toEqual(['reminder.metadata.a.b[1]']);
    expect(await listed(endpoint)).toEqual([]);
  });

  it('R42: metadata nested past the parser limit is -32602 with a violation on reminder.metadata', async () => {
    const endpoint = await start();
    for (const levels of [33, 150]) {
      const metadata = `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
      const answer = await send(
        endpoint,
        inject(`{"id":"deep","body":"b","metadata":${metadata}}`),
      );
      expect({ levels, answer }).toEqual({
        levels,
        answer: { status: 200, code: -32602, fields: ['reminder.metadata'] },
      });
    }
    expect(await listed(endpoint)).toEqual([]);
  });

  it('R43: "0x10" is not an integer, and a lone surrogate in metadata is refused', async () => {
    const endpoint = await start();
    const hex = await send(endpoint, inject('{"id":"hex","body":"b","ttlTurns":"0x10"}'));
    expect(hex).toEqual({ status: 200, code: -32602, fields: ['reminder.ttlTurns'] });
    const lone = await send(
      endpoint,
      inject('{"id":"lone","body":"b","metadata":{"k":"\\ud800","\\udc00":1}}'),
    );
    expect(lone).toEqual({
      status: 200,
      code: -32602,
      fields: ['reminder.metadata.k', 'reminder.metadata["\\udc00"]'],
    });
    expect(await listed(endpoint)).toEqual([]);
  });

  it('R8: an unreadable value does not hide the other violations', async () => {
    const endpoint = await start();
    const answer = await send(endpoint, inject('{"id":"bad id","body":"b","ttlTurns":"x"}'));
    expect(answer.code).toBe(-32602);
    expect(answer.fields.sort()).toEqual(['reminder.id', 'reminder.ttlTurns']);
  });
});

describe('JSON-RPC: authentication, activation, then validation, whatever the params (R45)', () => {
  const bodies = {
    'an unreadable value': inject('{"id":"r","body":"b","ttlTurns":"abc"}'),
    'params that are not an object': rpc('InjectTaskReminder', '"x"'),
    'params that are an array': rpc('ListTaskReminders', '[]'),
  };
  for (const [name, body] of Object.entries(bodies)) {
    it(`orders the checks for ${name}`, async () => {
      const endpoint = await start(true);
      const unactivated = { 'A2A-Extensions': '' };
      expect(await send(endpoint, body, unactivated)).toMatchObject({ status: 401, code: -32000 });
      expect(await send(endpoint, body, { ...unactivated, 'x-user': 'alice' })).toMatchObject({
        code: -32008,
      });
      expect(await send(endpoint, body, { 'x-user': 'alice' })).toMatchObject({
        status: 200,
        code: -32602,
      });
    });
  }
});
