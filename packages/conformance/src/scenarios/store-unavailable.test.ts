import { REMINDERS_ERROR_DOMAIN } from '@a2a-reminders/core';
import type { ReminderRpcName } from '@a2a-reminders/proto';
import type { JsonObject } from '@bufbuild/protobuf';
import { afterAll, expect } from 'vitest';
import type { Arm } from '../harness/arms.js';
import { captureConsoleErrors } from '../harness/console-capture.js';
import type { RawOutcome } from '../harness/raw-call.js';
import { rawCall } from '../harness/raw-call.js';
import { ACTIVATED_HEADERS } from '../harness/raw-wire.js';
import { storeParameter } from '../harness/stack-store.js';
import { breakableOf, StoreFaultHost } from '../harness/store-faults.js';
import { verifies } from '../harness/verifies.js';
import { within } from '../harness/wait.js';
import { expectWireCode } from '../harness/wire-codes.js';

// R69 with real faults on the case's own reminder store (the SQLite and
// PostgreSQL projects; the memory store cannot fail). PostgreSQL: its
// connections go through a loopback proxy that black-holes them (open and
// new ones), so only the statement and connect deadlines end a call, which
// the store's pool gets small here. SQLite: a second connection holds the
// file's write lock (BEGIN EXCLUSIVE) while the store's busy timeout is
// small. The task store is the stack's own (in memory), so the server's
// other calls are unaffected. Waits are hang guards only: a call that hung
// on the dead connection would fail the case at its guard, not pass.

const faults = new StoreFaultHost();
afterAll(() => faults.close());

/** The PostgreSQL pool's statement timeout: its deadline, half as long again, ends a call on a dead connection. */
const STATEMENT_TIMEOUT_MS = 500;
/** The SQLite store's busy timeout: a write waits this long for the other connection's lock. */
const BUSY_TIMEOUT_MS = 100;

/** `domain/reason` of each ErrorInfo detail of a failed call (R40). */
function reasons(outcome: RawOutcome): string[] {
  if (outcome.ok) return [];
  return outcome.wire.details.map((d) => {
    const o = d as JsonObject;
    return `${String(o.domain)}/${String(o.reason)}`;
  });
}

/** UNAVAILABLE on the arm's wire as R39, R40 and R69 give it. */
function expectUnavailable(arm: Arm, rpc: ReminderRpcName, outcome: RawOutcome): void {
  expectWireCode(arm, 'UNAVAILABLE', outcome);
  if (outcome.ok) return;
  expect({ rpc, details: reasons(outcome) }).toEqual({
    rpc,
    details: [`${REMINDERS_ERROR_DOMAIN}/UNAVAILABLE`],
  });
  // Both HTTP bindings send Retry-After: 1 with it; gRPC has no such header.
  const retryAfter = arm === 'jsonrpc' || arm === 'rest' ? '1' : undefined;
  expect({ rpc, retryAfter: outcome.wire.retryAfter }).toEqual({ rpc, retryAfter });
}

verifies(
  'R69-store-unavailable',
  async ({ arm, wire }) => {
    const store = breakableOf(wire.stack);
    const postgres = store.engine === 'postgres';
    const taskId = await wire.tasks.create();
    const call = (rpc: ReminderRpcName, request: JsonObject) =>
      within(rawCall(wire, rpc, request, ACTIVATED_HEADERS), `${rpc} to be answered`);
    const inject = { taskId, reminder: { id: 'during', body: 'sent while the store was down' } };
    const cancel = { taskId, reminderId: 'before' };
    const list = { taskId };
    const first = await call('InjectTaskReminder', {
      taskId,
      reminder: { id: 'before', body: 'stored before the fault' },
    });
    expect(first.ok).toBe(true);

    {
      using logged = captureConsoleErrors();
      await store.break();
      try {
        expectUnavailable(arm, 'InjectTaskReminder', await call('InjectTaskReminder', inject));
        expectUnavailable(arm, 'CancelTaskReminder', await call('CancelTaskReminder', cancel));
        const listed = await call('ListTaskReminders', list);
        if (postgres) {
          expectUnavailable(arm, 'ListTaskReminders', listed);
        } else {
          // A SQLite reader is not blocked by another connection's write
          // lock (WAL): the list answers, from the last commit.
          expect(listed.ok ? (listed.json.reminders as JsonObject[]).length : listed).toBe(1);
        }
        // The server keeps serving: a stock call on the same servers.
        expect((await wire.tasks.getTask(taskId)).id).toBe(taskId);
      } finally {
        await store.heal();
      }
      // The HTTP bindings report an unavailable call in one line each, never a stack.
      for (const line of logged.lines) expect(line).not.toMatch(/\n\s+at /);
    }

    // Once the store is back, the same calls succeed: nothing of the failed
    // inject was stored, so its resend is accepted, once.
    const injected = await call('InjectTaskReminder', inject);
    expect(injected.ok ? (injected.json.record as JsonObject).state : injected).toBe(
      'REMINDER_STATE_PENDING',
    );
    const cancelled = await call('CancelTaskReminder', cancel);
    expect(cancelled.ok ? (cancelled.json.record as JsonObject).state : cancelled).toBe(
      'REMINDER_STATE_CANCELLED',
    );
    const listed = await call('ListTaskReminders', list);
    const records = listed.ok ? (listed.json.reminders as JsonObject[]) : [];
    expect(records.map((r) => [(r.reminder as JsonObject).id, r.state])).toEqual([
      ['before', 'REMINDER_STATE_CANCELLED'],
      ['during', 'REMINDER_STATE_PENDING'],
    ]);
  },
  {
    stack: () =>
      faults.stack(
        storeParameter() === 'postgres'
          ? { statementTimeoutMs: STATEMENT_TIMEOUT_MS }
          : { busyTimeoutMs: BUSY_TIMEOUT_MS },
      ),
  },
);

// R69 on SQLite: a call waits for another process's write lock up to the
// busy timeout, retrying between other calls rather than blocking the
// process, and goes through once the lock is released. (PostgreSQL's
// retries are R70's cases: a connection lost before the commit.)
if (storeParameter() === 'sqlite') {
  verifies(
    'R69-store-unavailable',
    async ({ wire }) => {
      const store = breakableOf(wire.stack);
      const taskId = await wire.tasks.create();
      await wire.client.injectTaskReminder({ taskId, reminder: { id: 'before', body: 'x' } });
      await store.break();
      let answered = false;
      const waiting = (async () => {
        try {
          return await wire.client.injectTaskReminder({
            taskId,
            reminder: { id: 'waited', body: 'sent while the file was locked' },
          });
        } finally {
          answered = true;
        }
      })();
      try {
        // The inject has reached the store and waits for the lock...
        await store.untilCalls(store.transactions() + 1);
        // ...while the server answers other calls, the store's readers included.
        expect((await wire.tasks.getTask(taskId)).id).toBe(taskId);
        const listed = await wire.client.listTaskReminders({ taskId });
        expect(listed.reminders.map((r) => r.reminder?.id)).toEqual(['before']);
        expect(answered).toBe(false);
      } finally {
        await store.heal();
      }
      // Released well within the busy timeout: the waiting inject goes through.
      const accepted = await within(waiting, 'the waiting inject to be answered');
      expect(accepted.record?.reminder?.id).toBe('waited');
      const after = await wire.client.listTaskReminders({ taskId });
      expect(after.reminders.map((r) => r.reminder?.id)).toEqual(['before', 'waited']);
    },
    {
      variant: 'SQLite lock released while a call waits',
      // Long enough that only the release, never the timeout, ends the wait.
      stack: () => faults.stack({ busyTimeoutMs: 60_000 }),
    },
  );
}
