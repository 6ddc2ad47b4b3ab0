import { bindingServersPerTest, describeClientPages, seedPages } from '@a2a-reminders/test-support';
import { describe, expect, it } from 'vitest';
import { jsonRpcArm, post, rpcBody } from './testing/app.js';

// R49 over JSON-RPC: pageSize, pageToken and liveOnly are members of the
// ListTaskReminders params (ProtoJSON), nextPageToken a member of the result.

const servers = bindingServersPerTest(jsonRpcArm);

/** The real core behind the binding; task-1 holds a0..a4, a1 cancelled. */
const start = async () => seedPages(await servers.start());

describeClientPages('JSON-RPC', async () => (await start()).client);

type Json = Record<string, unknown>;

async function list(endpoint: string, params: Json) {
  return (await post(endpoint, rpcBody('ListTaskReminders', params))).json;
}

describe('JSON-RPC ListTaskReminders pages (R49)', () => {
  it('raw params: pageSize as a number or decimal string, nextPageToken in the result', async () => {
    const { endpoint } = await start();
    const first = (await list(endpoint, { taskId: 'task-1', pageSize: '2' })).result as Json;
    expect(((first.reminders as Json[]) ?? []).length).toBe(2);
    expect(first.nextPageToken).toEqual(expect.any(String));
    const last = (
      await list(endpoint, { taskId: 'task-1', pageSize: 3, pageToken: first.nextPageToken })
    ).result as Json;
    expect([(last.reminders as Json[]).length, last.nextPageToken]).toEqual([3, undefined]);
  });

  it.each([
    [{ pageSize: 0 }, ['pageSize']],
    [{ pageSize: 101 }, ['pageSize']],
    [{ pageToken: 'not-a-token' }, ['pageToken']],
    [{ liveOnly: 'yes' }, ['liveOnly']],
    [{ pageSize: -5, pageToken: '!!' }, ['pageSize', 'pageToken']],
  ])('%j is -32602 with violations on %j', async (params, fields) => {
    const { endpoint } = await start();
    const answer = await list(endpoint, { taskId: 'task-1', ...params });
    const error = answer.error as { code: number; data: Json[] };
    expect(error.code).toBe(-32602);
    const badRequest = error.data.find((d) => String(d['@type']).endsWith('BadRequest'));
    expect(((badRequest?.fieldViolations ?? []) as Json[]).map((v) => v.field)).toEqual(fields);
  });
});
