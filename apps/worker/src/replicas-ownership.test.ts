import { Role, TaskState } from '@a2a-js/sdk';
import { textMessage } from '@a2a-reminders/core';
import { ReminderState } from '@a2a-reminders/proto';
import { describe, expect, it } from 'vitest';
import { deployment } from './testing/deployment.js';
import { a2aCallOptions } from './testing/replica-set.js';
import { delegateStreaming } from './testing/task-stream.js';

// R74 and R73 with real replica processes on one PostgreSQL database: a
// follow-up message that reaches a replica other than the one running the
// task is refused there, so one agent loop runs per task; a replica stopped
// with SIGTERM ends its running tasks CANCELED, stores their reminders'
// fates and releases their leases before it closes the database.

/** Waits poll a condition up to this long: a hang guard, never a verdict on speed. */
const DEADLINE_MS = 60_000;

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const followUp = (taskId: string, contextId: string, text: string) => ({
  tenant: '',
  message: textMessage(Role.ROLE_USER, { taskId, contextId }, text),
  configuration: {
    acceptedOutputModes: ['text/plain'],
    taskPushNotificationConfig: undefined,
    returnImmediately: true,
  },
  metadata: undefined,
});

describe('replicas own their tasks', () => {
  const { replicas, db } = deployment({ turnMs: 100, leaseMs: 10_000 });

  it('R74: a follow-up sent to another replica is refused there; the task keeps one loop', async () => {
    const [a, b] = replicas();
    const stream = await delegateStreaming(await a.a2a('jsonrpc'), 'Port the parser module');
    const task = await (await a.a2a('jsonrpc')).getTask(
      { tenant: '', id: stream.taskId },
      a2aCallOptions(),
    );
    for (const binding of ['jsonrpc', 'rest', 'grpc'] as const) {
      const client = await b.a2a(binding);
      const refused = await client
        .sendMessage(followUp(stream.taskId, task.contextId, 'also the lexer'), a2aCallOptions())
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(refused, binding).toBeInstanceOf(Error);
      expect(String((refused as Error).message), binding).toContain('another replica');
    }
    // No lease changed hands: A's execution is the only one.
    const { rows } = await db().query<{ holder: string }>(
      'select holder from a2a_task_leases where task_id = $1',
      [stream.taskId],
    );
    expect(rows.map((r) => r.holder.split('#')[0])).toEqual(['A']);
    const state = (
      await (await b.a2a('rest')).getTask({ tenant: '', id: stream.taskId }, a2aCallOptions())
    ).status?.state;
    expect(state).toBe(TaskState.TASK_STATE_WORKING);
    // The same follow-up on A itself joins the running loop, as on one process.
    await expect(
      (await a.a2a('jsonrpc')).sendMessage(
        followUp(stream.taskId, task.contextId, 'also the lexer'),
        a2aCallOptions(),
      ),
    ).resolves.toBeDefined();
  });
});

// As an operator runs it: no turn limit, so a task works until it is cancelled.
describe('a replica stopped cleanly', () => {
  const { replicas, db } = deployment({ turnMs: 500, leaseMs: 10_000, args: ['--turns', '0'] });

  it('R73: SIGTERM ends the running tasks CANCELED, their reminders final, their leases released', async () => {
    const [, , c] = replicas();
    const stream = await delegateStreaming(await c.a2a('grpc'), 'Port the cache module');
    await c.reminders.rest.injectTaskReminder({
      taskId: stream.taskId,
      reminder: { id: 'pending', body: 'rebase before retrying', ttlTurns: 20 },
    });
    await c.stop();
    expect(c.process.child.exitCode).toBe(0);
    const stderr = c.process.errorLines.join('\n');
    expect(stderr).not.toContain('could not release');
    expect(stderr).not.toContain('destroyed');

    const [a] = replicas();
    const stored = await until(
      'the task stored by the stopped replica',
      async () =>
        (
          await (
            await a.a2a('jsonrpc')
          ).getTask({ tenant: '', id: stream.taskId }, a2aCallOptions())
        ).status?.state,
    );
    expect(stored).toBe(TaskState.TASK_STATE_CANCELED);
    const records = (await a.reminders.jsonrpc.listTaskReminders({ taskId: stream.taskId }))
      .reminders;
    const live = [ReminderState.PENDING, ReminderState.ACTIVE];
    expect(records.map((r) => [r.reminder?.id, live.includes(r.state)])).toEqual([
      ['pending', false],
    ]);
    const { rows } = await db().query('select holder from a2a_task_leases where task_id = $1', [
      stream.taskId,
    ]);
    expect(rows).toEqual([]);
  });
});
