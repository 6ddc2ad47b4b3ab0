import type { JsonObject } from '@bufbuild/protobuf';
import { expect } from 'vitest';
import type { HttpAnswer } from '../harness/raw-wire.js';
import { ACTIVATED_HEADERS, rawHttp } from '../harness/raw-wire.js';
import { as } from '../harness/users.js';
import { verifies } from '../harness/verifies.js';
import type { Wire } from '../harness/wire.js';

/** `status CODE field,field` of a REST answer: the google.rpc.Status name and the violations. */
function verdict(answer: HttpAnswer): string {
  const error = answer.json.error as JsonObject | undefined;
  if (error === undefined) return `${answer.status}`;
  const violations = ((error.details ?? []) as JsonObject[]).flatMap(
    (d) => (d.fieldViolations ?? []) as JsonObject[],
  );
  return `${answer.status} ${String(error.status)} ${violations.map((v) => v.field).join(',')}`;
}

/** A raw REST call under the HTTP+JSON interface URL, as `alice` with the extension activated. */
function rest(
  wire: Wire,
  method: 'GET' | 'POST',
  path: string,
  body?: JsonObject,
  headers: Record<string, string> = { ...ACTIVATED_HEADERS, ...as('alice') },
): Promise<HttpAnswer> {
  return rawHttp(wire.endpoints, method, `${wire.endpoints.restUrl}${path}`, {
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    headers: { ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
  });
}

verifies(
  'R56-rest-path-and-body-agree',
  async ({ wire }) => {
    const taskId = await wire.tasks.create({ user: 'alice' });
    const other = await wire.tasks.create({ user: 'alice' });
    const reminder = { id: 'r', body: 'b' };
    const inject = `/tasks/${taskId}:injectReminder`;

    // A body naming another task (in either spelling of the field) is refused, not redirected.
    for (const body of [
      { taskId: other, reminder },
      { task_id: other, reminder },
    ]) {
      expect(verdict(await rest(wire, 'POST', inject, body))).toBe('400 INVALID_ARGUMENT taskId');
    }
    // So is a cancel naming another reminder, and a list query naming another task.
    const cancel = `/tasks/${taskId}/reminders/r:cancel`;
    expect(verdict(await rest(wire, 'POST', cancel, { reminderId: 'x' }))).toBe(
      '400 INVALID_ARGUMENT reminderId',
    );
    expect(verdict(await rest(wire, 'GET', `/tasks/${taskId}/reminders?taskId=${other}`))).toBe(
      '400 INVALID_ARGUMENT taskId',
    );
    // Nothing reached either task.
    for (const id of [taskId, other]) {
      const listed = await rest(wire, 'GET', `/tasks/${id}/reminders`);
      expect([listed.status, listed.json.reminders]).toEqual([200, undefined]);
    }

    // The path's own value repeated, null, or left out is served.
    expect(verdict(await rest(wire, 'POST', inject, { taskId, reminder }))).toBe('200');
    expect(verdict(await rest(wire, 'POST', inject, { task_id: null, reminder }))).toBe('200');
    expect(verdict(await rest(wire, 'POST', cancel, { taskId, reminderId: 'r' }))).toBe('200');

    // The refusal comes in R45's order: authentication and activation first.
    const contradicting = { taskId: other, reminder };
    expect(verdict(await rest(wire, 'POST', inject, contradicting, ACTIVATED_HEADERS))).toMatch(
      /^401 UNAUTHENTICATED/,
    );
    expect(
      verdict(
        await rest(wire, 'POST', inject, contradicting, { 'A2A-Version': '1.0', ...as('alice') }),
      ),
    ).toMatch(/^400 FAILED_PRECONDITION/);
  },
  { stack: { requireAuthentication: true } },
);
