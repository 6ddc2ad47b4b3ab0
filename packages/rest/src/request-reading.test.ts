import { TaskState } from '@a2a-js/sdk';
import { bindingServersPerTest, saveTask } from '@a2a-reminders/test-support';
import { describe, expect, it } from 'vitest';
import { call, restArm } from './testing/app.js';

/**
 * Issue 8 §1 and §4 over HTTP+JSON with the real core: values the service
 * cannot store are typed errors that leave the task listable (R41–R44), and
 * the order of checks does not depend on the path or body (R45).
 */

const servers = bindingServersPerTest(restArm);

async function start(requireAuthentication = false) {
  const server = await servers.start({ requireAuthentication });
  await saveTask(server.taskStore, { id: 'task-1', state: TaskState.TASK_STATE_WORKING });
  return server.endpoint;
}

interface Answer {
  readonly status: number;
  readonly code: string | undefined;
  readonly fields: string[];
}

async function send(
  method: 'GET' | 'POST',
  url: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const raw = await call(method, url, body, headers);
  const error = raw.json.error as { status: string; details?: unknown[] } | undefined;
  const badRequest = (error?.details ?? []).find(
    (d) => (d as { '@type': string })['@type'] === 'type.googleapis.com/google.rpc.BadRequest',
  ) as { fieldViolations: Array<{ field: string }> } | undefined;
  return {
    status: raw.status,
    code: error?.status,
    fields: badRequest?.fieldViolations.map((v) => v.field) ?? [],
  };
}

async function listed(base: string): Promise<unknown> {
  const raw = await call('GET', `${base}/tasks/task-1/reminders`);
  expect(raw.status).toBe(200);
  return (raw.json as { reminders?: unknown[] }).reminders ?? [];
}

const injectUrl = (base: string) => `${base}/tasks/task-1:injectReminder`;

describe('REST: a request never poisons a task', () => {
  it('R41: 1e309 in metadata is 400 INVALID_ARGUMENT on reminder.metadata.x, and the task stays listable', async () => {
    const base = await start();
    const answer = await send(
      'POST',
      injectUrl(base),
      '{"reminder":{"id":"inf-1","body":"hello","metadata":{"x":1e309}}}',
    );
    expect(answer).toEqual({
      status: 400,
      code: 'INVALID_ARGUMENT',
      fields: ['reminder.metadata.x'],
    });
    expect(await listed(base)).toEqual([]);
  });

  it('R42: metadata nested past the parser limit is a violation on reminder.metadata', async () => {
    const base = await start();
    const metadata = `${'[{"a":'.repeat(60)}1${'}]'.repeat(60)}`;
    const answer = await send(
      'POST',
      injectUrl(base),
      `{"reminder":{"id":"deep","body":"b","metadata":{"m":${metadata}}}}`,
    );
    expect(answer).toEqual({
      status: 400,
      code: 'INVALID_ARGUMENT',
      fields: ['reminder.metadata'],
    });
    expect(await listed(base)).toEqual([]);
  });

  it('R43: "0x10" is not an integer, and a lone surrogate in metadata is refused', async () => {
    const base = await start();
    const hex = await send(
      'POST',
      injectUrl(base),
      '{"reminder":{"id":"h","body":"b","ttlTurns":"0x10"}}',
    );
    expect(hex).toEqual({ status: 400, code: 'INVALID_ARGUMENT', fields: ['reminder.ttlTurns'] });
    const lone = await send(
      'POST',
      injectUrl(base),
      '{"reminder":{"id":"l","body":"b","metadata":{"k":"a\\udbffb"}}}',
    );
    expect(lone).toEqual({
      status: 400,
      code: 'INVALID_ARGUMENT',
      fields: ['reminder.metadata.k'],
    });
    expect(await listed(base)).toEqual([]);
  });

  it('R8: every violation at once, path and body together', async () => {
    const base = await start();
    const answer = await send(
      'POST',
      `${base}/tasks/%zz:injectReminder`,
      '{"reminder":{"id":"bad id","body":"b","ttlTurns":"x"}}',
    );
    expect(answer.code).toBe('INVALID_ARGUMENT');
    expect(answer.fields.sort()).toEqual(['reminder.id', 'reminder.ttlTurns', 'taskId']);
  });
});

describe('REST: authentication, activation, then validation, whatever the path or body (R45)', () => {
  const requests: Record<string, (base: string) => ['GET' | 'POST', string, string?]> = {
    'an unreadable value': (b) => [
      'POST',
      injectUrl(b),
      '{"reminder":{"id":"r","body":"b","ttlTurns":"abc"}}',
    ],
    'a body that is an array': (b) => ['POST', injectUrl(b), '[]'],
    'a malformed path segment': (b) => ['POST', `${b}/tasks/%zz:injectReminder`, '{}'],
    'a malformed segment on a GET': (b) => ['GET', `${b}/tasks/%E0%A4%A/reminders`],
  };
  for (const [name, request] of Object.entries(requests)) {
    it(`orders the checks for ${name}`, async () => {
      const base = await start(true);
      const [method, url, body] = request(base);
      const unactivated = { 'A2A-Extensions': '' };
      expect(await send(method, url, body, unactivated)).toMatchObject({
        status: 401,
        code: 'UNAUTHENTICATED',
      });
      expect(await send(method, url, body, { ...unactivated, 'x-user': 'alice' })).toMatchObject({
        status: 400,
        code: 'FAILED_PRECONDITION',
      });
      expect(await send(method, url, body, { 'x-user': 'alice' })).toMatchObject({
        status: 400,
        code: 'INVALID_ARGUMENT',
      });
    });
  }
});
