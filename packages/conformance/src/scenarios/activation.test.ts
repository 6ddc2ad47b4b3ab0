import {
  REMINDERS_ERROR_DOMAIN,
  TASK_REMINDERS_EXTENSION_URI,
  withTaskReminders,
} from '@a2a-reminders/core';
import { ReminderState } from '@a2a-reminders/proto';
import { expect } from 'vitest';
import { kinds } from '../harness/observe.js';
import { rawCall } from '../harness/raw-call.js';
import { ACTIVATED_HEADERS } from '../harness/raw-wire.js';
import { as } from '../harness/users.js';
import { verifies } from '../harness/verifies.js';

verifies('R1-extension-uri', async ({ wire }) => {
  const taskId = await wire.tasks.create();
  const watch = await wire.tasks.subscribe(taskId);
  await wire.client.injectTaskReminder({
    taskId,
    reminder: { id: 'r1', body: 'hello', dedupeKey: 'k' },
  });
  await wire.client.injectTaskReminder({
    taskId,
    reminder: { id: 'r2', body: 'again', dedupeKey: 'k' },
  });
  // The task's next event sends the waiting displacement first (R57), well before R67's delay.
  await wire.tasks.settle(taskId);
  await watch.untilEvents(1);
  const carrier = watch.items.find(
    (item) => item.payload?.$case === 'statusUpdate' && item.payload.value.metadata !== undefined,
  );
  expect(carrier?.payload?.$case).toBe('statusUpdate');
  if (carrier?.payload?.$case !== 'statusUpdate') return;
  expect(Object.keys(carrier.payload.value.metadata ?? {})).toEqual([TASK_REMINDERS_EXTENSION_URI]);
  // Extension-specific reasons travel in the extension's own ErrorInfo domain.
  const outcome = await rawCall(
    wire,
    'CancelTaskReminder',
    { taskId, reminderId: 'nope' },
    ACTIVATED_HEADERS,
  );
  expect(outcome.ok).toBe(false);
  if (outcome.ok) return;
  expect(outcome.wire.details).toContainEqual(
    expect.objectContaining({ reason: 'REMINDER_NOT_FOUND', domain: REMINDERS_ERROR_DOMAIN }),
  );
});

/** The limits R2 lists in the card's params. */
const LIMIT_PARAMS = [
  'maxBodyChars',
  'maxTtlTurns',
  'maxLiveRemindersPerTask',
  'maxMetadataBytes',
  'retentionMs',
  'maxRetainedFinalRemindersPerTask',
  'maxForwardHops',
] as const;

verifies('R2-agent-card', async ({ wire }) => {
  const card = await wire.sdk.getAgentCard();
  const entry = card.capabilities?.extensions.find((e) => e.uri === TASK_REMINDERS_EXTENSION_URI);
  expect(entry?.required).toBe(false);
  const params = entry?.params as Record<string, unknown> | undefined;
  // Every limit is listed, as a whole number (R2); an agent chooses its own values.
  for (const limit of LIMIT_PARAMS) {
    expect(Number.isSafeInteger(params?.[limit]) && (params?.[limit] as number) >= 0, limit).toBe(
      true,
    );
  }
  expect(params?.defaultTtlTurns).toBe(1);
  expect([...((params?.acceptedStates as string[] | undefined) ?? [])].sort()).toEqual(
    [
      'TASK_STATE_AUTH_REQUIRED',
      'TASK_STATE_INPUT_REQUIRED',
      'TASK_STATE_SUBMITTED',
      'TASK_STATE_WORKING',
    ].sort(),
  );
  // The lifecycle events, and R63's report on a forwarded copy.
  expect([...((params?.events as string[] | undefined) ?? [])].sort()).toEqual(
    ['cancelled', 'displaced', 'dropped', 'emitted', 'expired', 'forward'].sort(),
  );
});

verifies(
  'R2-agent-card',
  async ({ wire }) => {
    const card = await wire.sdk.getAgentCard();
    const entry = card.capabilities?.extensions.find((e) => e.uri === TASK_REMINDERS_EXTENSION_URI);
    // The card lists the service's own limits: the defaults here.
    expect(entry?.params).toEqual(expect.objectContaining({ ...wire.reminders.limits }));
    expect(wire.reminders.limits).toEqual({
      maxBodyChars: 4096,
      maxTtlTurns: 20,
      maxLiveRemindersPerTask: 64,
      maxMetadataBytes: 16 * 1024,
      retentionMs: 60 * 60 * 1000,
      maxRetainedFinalRemindersPerTask: 128,
      maxForwardHops: 4,
    });
    // The card helper replaces an earlier entry rather than duplicating it.
    const again = withTaskReminders(card, wire.reminders);
    expect(
      again.capabilities?.extensions.filter((e) => e.uri === TASK_REMINDERS_EXTENSION_URI),
    ).toHaveLength(1);
  },
  { variant: "the service's limits" },
);

verifies('R3-activation', async ({ wire }) => {
  const taskId = await wire.tasks.create();
  const request = { taskId, reminder: { id: 'r1', body: 'hello' } };
  const refused = await rawCall(wire, 'InjectTaskReminder', request, { 'A2A-Version': '1.0' });
  expect(refused.ok).toBe(false);
  if (!refused.ok) expect(refused.error.code).toBe('EXTENSION_NOT_ACTIVATED');
  const other = await rawCall(
    wire,
    'ListTaskReminders',
    { taskId },
    {
      'A2A-Version': '1.0',
      'A2A-Extensions': 'https://example.com/other-extension',
    },
  );
  expect(other.ok ? 'ok' : other.error.code).toBe('EXTENSION_NOT_ACTIVATED');
  // Nothing was accepted by the refused call.
  expect((await wire.client.listTaskReminders({ taskId })).reminders).toEqual([]);
  const accepted = await rawCall(wire, 'InjectTaskReminder', request, {
    'A2A-Version': '1.0',
    'A2A-Extensions': `https://example.com/other-extension, ${TASK_REMINDERS_EXTENSION_URI}`,
  });
  expect(accepted.ok).toBe(true);
  if (accepted.ok) expect(accepted.activated ?? '').toContain(TASK_REMINDERS_EXTENSION_URI);
});

verifies('R4-protocol-version', async ({ wire }) => {
  const taskId = await wire.tasks.create();
  const ext = { 'A2A-Extensions': TASK_REMINDERS_EXTENSION_URI };
  const absent = await rawCall(wire, 'ListTaskReminders', { taskId }, ext);
  expect(absent.ok ? 'ok' : absent.error.code).toBe('VERSION_NOT_SUPPORTED');
  const unserved = await rawCall(
    wire,
    'ListTaskReminders',
    { taskId },
    { ...ext, 'A2A-Version': '9.9' },
  );
  expect(unserved.ok ? 'ok' : unserved.error.code).toBe('VERSION_NOT_SUPPORTED');
  const served = await rawCall(
    wire,
    'ListTaskReminders',
    { taskId },
    { ...ext, 'A2A-Version': '1.0' },
  );
  expect(served.ok).toBe(true);
});

verifies(
  'R5-authentication-and-order',
  async ({ wire }) => {
    const taskId = await wire.tasks.create({ user: 'alice' });
    const bad = { taskId: 'no-such-task', reminder: { id: 'bad id!', body: '' } };
    const codeOf = async (request: Record<string, unknown>, headers: Record<string, string>) => {
      const outcome = await rawCall(wire, 'InjectTaskReminder', request as never, headers);
      return outcome.ok ? 'ok' : outcome.error.code;
    };
    // Each check reports first: authentication, activation, validation, lookup.
    expect(await codeOf(bad, { 'A2A-Version': '1.0' })).toBe('UNAUTHENTICATED');
    expect(await codeOf(bad, { 'A2A-Version': '1.0', ...as('alice') })).toBe(
      'EXTENSION_NOT_ACTIVATED',
    );
    expect(await codeOf(bad, { ...ACTIVATED_HEADERS, ...as('alice') })).toBe('INVALID_ARGUMENT');
    expect(
      await codeOf(
        { ...bad, reminder: { id: 'ok', body: 'fine' } },
        { ...ACTIVATED_HEADERS, ...as('alice') },
      ),
    ).toBe('TASK_NOT_FOUND');
    expect(
      await codeOf(
        { taskId, reminder: { id: 'ok', body: 'fine' } },
        { ...ACTIVATED_HEADERS, ...as('alice') },
      ),
    ).toBe('ok');
    // Our client with auth headers is served too.
    const list = await wire.clientWith(as('alice')).listTaskReminders({ taskId });
    expect(list.reminders.map((r) => r.reminder?.id)).toEqual(['ok']);
  },
  { stack: { requireAuthentication: true } },
);

verifies('R6-operations', async ({ wire }) => {
  const taskId = await wire.tasks.create();
  const watch = await wire.tasks.subscribe(taskId);
  const injected = await wire.client.injectTaskReminder({
    taskId,
    reminder: { id: 'r1', body: 'first', ttlTurns: 2 },
  });
  expect(injected.record?.taskId).toBe(taskId);
  expect(injected.record?.reminder?.ttlTurns).toBe(2);
  const listed = await wire.client.listTaskReminders({ taskId });
  expect(listed.reminders.map((r) => [r.reminder?.id, r.state])).toEqual([
    ['r1', ReminderState.PENDING],
  ]);
  const cancelled = await wire.client.cancelTaskReminder({ taskId, reminderId: 'r1' });
  expect(cancelled.record?.state).toBe(ReminderState.CANCELLED);
  await watch.untilEvents(1);
  expect(kinds(watch.events())).toEqual(['cancelled:r1']);
  // The SDK's own service still answers on the same endpoint.
  expect((await wire.tasks.getTask(taskId)).id).toBe(taskId);
});
