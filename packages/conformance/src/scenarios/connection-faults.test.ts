import type { JsonObject } from '@bufbuild/protobuf';
import { afterAll, expect } from 'vitest';
import { captureConsoleErrors } from '../harness/console-capture.js';
import type { RawOutcome } from '../harness/raw-call.js';
import { rawCall } from '../harness/raw-call.js';
import { ACTIVATED_HEADERS } from '../harness/raw-wire.js';
import type { BreakableStore } from '../harness/store-faults.js';
import { breakableOf, StoreFaultHost } from '../harness/store-faults.js';
import { verifies } from '../harness/verifies.js';
import { poll, within } from '../harness/wait.js';
import type { Wire } from '../harness/wire.js';

// R70 on the PostgreSQL store with real faults: the case's reminder store
// connects through a loopback proxy, and an inject's transaction is held
// between its first read and the rest (harness/gated-store.ts) while its
// connection is reset at the proxy, its backend ended on the server, or the
// connection black-holed (half-open). The process must not end (vitest
// fails the run on an unhandled error, which an 'error' event of a pooled
// connection without a listener would be). Waits are hang guards only.

const faults = new StoreFaultHost();
afterAll(() => faults.close());

/** The pool's statement timeout, small so a half-open connection fails its call soon (R70). */
const STATEMENT_TIMEOUT_MS = 300;

const stack = () => faults.stack({ statementTimeoutMs: STATEMENT_TIMEOUT_MS });

/** The reminders listed on the task as `[id, state]`, each as often as listed. */
async function listed(wire: Wire, taskId: string): Promise<unknown[]> {
  const answer = await rawCall(wire, 'ListTaskReminders', { taskId }, ACTIVATED_HEADERS);
  if (!answer.ok) return [answer.error.code];
  return (answer.json.reminders as JsonObject[]).map((r) => [
    (r.reminder as JsonObject).id,
    r.state,
  ]);
}

/**
 * Sends an inject and holds its transaction after its first read; runs
 * `fault` on the connection it holds, then lets the transaction go on.
 * Returns the inject's outcome, the ids of the store's connections open
 * when the fault struck and the held transaction's number in the gate's log.
 */
async function injectAcross(
  wire: Wire,
  store: BreakableStore,
  taskId: string,
  fault: () => number | Promise<number>,
): Promise<{ outcome: RawOutcome; struck: number[]; held: number }> {
  const held = store.holdNext();
  const call = rawCall(
    wire,
    'InjectTaskReminder',
    { taskId, reminder: { id: 'mid', body: 'its connection failed mid-transaction' } },
    ACTIVATED_HEADERS,
  );
  const transaction = await held;
  const struck = store.connections().map((c) => c.id);
  expect(struck.length).toBeGreaterThan(0);
  expect(await fault()).toBeGreaterThan(0);
  transaction.release();
  return { outcome: await within(call, 'the inject to be answered'), struck, held: transaction.n };
}

/** `accepted`, or the code of the error the inject answered. */
function answerOf(outcome: RawOutcome): string {
  return outcome.ok ? 'accepted' : outcome.error.code;
}

/**
 * A connection that failed mid-transaction, by reset or by its backend
 * ending: the inject is run again on a fresh connection (nothing of it
 * committed), the next calls are served on connections opened after the
 * fault, and the reminder is stored once.
 */
async function failsMidTransaction(
  wire: Wire,
  fault: (store: BreakableStore) => number | Promise<number>,
): Promise<void> {
  const store = breakableOf(wire.stack);
  const taskId = await wire.tasks.create();
  await wire.client.injectTaskReminder({ taskId, reminder: { id: 'warm', body: 'before' } });
  using _logged = captureConsoleErrors();
  const { outcome, struck, held } = await injectAcross(wire, store, taskId, () => fault(store));
  // R69: nothing of it can have committed (its commit was never sent), so
  // the store ran it again, once, on another connection, and it was accepted.
  expect(answerOf(outcome)).toBe('accepted');
  expect(store.log.filter((entry) => entry === `start ${held}`)).toHaveLength(2);
  // Every connection the fault struck is gone; the next call is served on a new one.
  await poll(
    () => !store.connections().some((c) => struck.includes(c.id)),
    'the failed connections to be closed',
  );
  expect(await listed(wire, taskId)).toContainEqual(['warm', 'REMINDER_STATE_PENDING']);
  expect(store.connections().length).toBeGreaterThan(0);
  // Resent, the inject is a replay or accepted (R13, R69): stored once either way.
  const resent = await wire.client.injectTaskReminder({
    taskId,
    reminder: { id: 'mid', body: 'its connection failed mid-transaction' },
  });
  expect(resent.record?.reminder?.id).toBe('mid');
  expect(await listed(wire, taskId)).toEqual([
    ['warm', 'REMINDER_STATE_PENDING'],
    ['mid', 'REMINDER_STATE_PENDING'],
  ]);
}

verifies(
  'R70-dead-connections',
  async ({ wire }) => {
    // A network failure: the proxy resets the connection (RST) under the held transaction.
    await failsMidTransaction(wire, (store) => store.cut());
  },
  { stack },
);

verifies(
  'R70-dead-connections',
  async ({ wire }) => {
    // An operator or a failover ends the backend (pg_terminate_backend) under the held transaction.
    await failsMidTransaction(wire, (store) => store.terminateBackends());
  },
  { variant: 'backend ended', stack },
);

verifies(
  'R70-dead-connections',
  async ({ wire }) => {
    const store = breakableOf(wire.stack);
    const taskId = await wire.tasks.create();
    await wire.client.injectTaskReminder({ taskId, reminder: { id: 'warm', body: 'before' } });
    {
      using _logged = captureConsoleErrors();
      // Half-open: the rest of the transaction goes out and nothing comes
      // back. Only the statement deadline can end the call (the server's
      // timeout cannot answer over it, TCP keepalive starts at 10 s).
      const { outcome, struck } = await injectAcross(wire, store, taskId, () => store.break());
      expect(answerOf(outcome)).toBe('UNAVAILABLE');
      // Its connection was closed, not handed to the next call.
      await poll(
        () => !store.connections().some((c) => struck.includes(c.id)),
        'the half-open connection to be closed',
      );
      // The server ends the transaction its silent client left open, so it
      // holds the task's row lock (R19) no longer than the same deadline.
      await poll(
        async () => (await store.idleInTransaction()) === 0,
        'the server to end the silent transaction',
      );
      await store.heal();
    }
    // A fresh connection serves the next calls; the failed inject stored nothing.
    expect(await listed(wire, taskId)).toEqual([['warm', 'REMINDER_STATE_PENDING']]);
    const resent = await wire.client.injectTaskReminder({
      taskId,
      reminder: { id: 'mid', body: 'its connection failed mid-transaction' },
    });
    expect(resent.record?.reminder?.id).toBe('mid');
    expect(store.connections().every((c) => c.state === 'forwarding')).toBe(true);
  },
  { variant: 'half-open connection', stack },
);
