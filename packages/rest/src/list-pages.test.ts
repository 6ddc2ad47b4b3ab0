import { bindingServersPerTest, describeClientPages, seedPages } from '@a2a-reminders/test-support';
import { describe, expect, it } from 'vitest';
import { call, restArm } from './testing/app.js';

// R49 over HTTP+JSON: pageSize, pageToken and liveOnly are query parameters
// of GET /tasks/{taskId}/reminders (the google.api.http rule has no body).

const servers = bindingServersPerTest(restArm);

/** The real core behind the binding; task-1 holds a0..a4, a1 cancelled. */
const start = async () => seedPages(await servers.start());

describeClientPages('REST', async () => (await start()).client);

type Json = Record<string, unknown>;
const listedIds = (json: Json) =>
  ((json.reminders ?? []) as Json[]).map((r) => (r.reminder as Json).id);

describe('REST ListTaskReminders pages (R49)', () => {
  it('the query parameters reach the service, and nextPageToken comes back as JSON', async () => {
    const { endpoint } = await start();
    const url = `${endpoint}/tasks/task-1/reminders`;
    const first = await call('GET', `${url}?pageSize=2&liveOnly=true`);
    expect([first.status, listedIds(first.json)]).toEqual([200, ['a0', 'a2']]);
    const token = first.json.nextPageToken as string;
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    const rest = await call(
      'GET',
      `${url}?liveOnly=true&pageToken=${encodeURIComponent(token)}&pageSize=5`,
    );
    expect([rest.status, listedIds(rest.json), rest.json.nextPageToken]).toEqual([
      200,
      ['a3', 'a4'],
      undefined, // ProtoJSON omits the empty token: the last page
    ]);
    const all = await call('GET', `${url}?liveOnly=false`);
    expect(listedIds(all.json)).toEqual(['a0', 'a1', 'a2', 'a3', 'a4']);
  });

  it.each([
    ['pageSize=0', ['pageSize']],
    ['pageSize=101', ['pageSize']],
    ['pageSize=abc', ['pageSize']],
    ['pageSize=2&pageSize=3', ['pageSize']],
    ['pageToken=not-a-token', ['pageToken']],
    ['liveOnly=maybe', ['liveOnly']],
    ['pageSize=0&pageToken=x', ['pageSize', 'pageToken']],
  ])('?%s is a 400 INVALID_ARGUMENT on %j', async (query, fields) => {
    const { endpoint } = await start();
    const answer = await call('GET', `${endpoint}/tasks/task-1/reminders?${query}`);
    expect(answer.status).toBe(400);
    const error = answer.json.error as { status: string; details: Json[] };
    expect(error.status).toBe('INVALID_ARGUMENT');
    const badRequest = error.details.find((d) => String(d['@type']).endsWith('BadRequest'));
    const violations = (badRequest?.fieldViolations ?? []) as Json[];
    expect(violations.map((v) => v.field)).toEqual(fields);
    // The server keeps serving.
    expect((await call('GET', `${endpoint}/tasks/task-1/reminders`)).status).toBe(200);
  });
});
