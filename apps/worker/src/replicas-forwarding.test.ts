import type { StreamResponse } from '@a2a-js/sdk';
import type { TestDatabase } from '@a2a-reminders/database/testing';
import { createTestDatabase } from '@a2a-reminders/database/testing';
import type { TaskReminderEvent } from '@a2a-reminders/proto';
import { ReminderState } from '@a2a-reminders/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIVE_LEASE_MS } from './testing/deployment.js';
import type { Replica } from './testing/replica-set.js';
import { a2aCallOptions, startReplicas, stopAll } from './testing/replica-set.js';
import type { SpawnedWorker } from './testing/spawn-main.js';
import { exitOf, spawnMain } from './testing/spawn-main.js';
import { delegateStreaming } from './testing/task-stream.js';

// Spec §15 with replicas (R62, R64): replica A runs a task that delegates its
// test step to a test agent; reminders injected and cancelled on replica B
// reach the forwarding on A through the shared store, and every copy's state
// comes back on A's stream and on both replicas' records.

/** `id:state` of a stream's `forward` events, in order. */
function forwardTrail(events: readonly TaskReminderEvent[]): string[] {
  return events.flatMap((e) =>
    e.event.case === 'forward'
      ? [`${e.reminderId}:${e.event.value.refusal || ReminderState[e.event.value.state]}`]
      : [],
  );
}

/** The sub-task id in A's progress once the test step is delegated. */
function delegatedTo(item: StreamResponse): string | undefined {
  const payload = item.payload;
  if (payload?.$case !== 'statusUpdate') return undefined;
  const part = payload.value.status?.message?.parts[0]?.content;
  if (part?.$case !== 'text') return undefined;
  return /delegated to .+ as task (\S+)$/.exec(part.value)?.[1];
}

describe('forwarding on replicas: injects and cancels on another replica reach the sub-task', () => {
  let database: TestDatabase | undefined;
  let testAgent: SpawnedWorker | undefined;
  let replicas: Replica[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('postgres', { migrate: false });
    // No turn limit, and the longest pause between turns: the sub-task takes
    // its first turn at once and no other while the test runs, so a copy stays
    // PENDING until its cancel arrives, however long A takes to read B's
    // writes (R64). Cancelling the task on A ends the pause, and the run.
    testAgent = await spawnMain([
      ...['--store', 'memory', '--port', '0', '--grpc-port', '0'],
      ...['--turns', '0', '--turn-ms', '600000', '--name', 'test agent'],
    ]);
    const url = testAgent.ready[1] ?? '';
    replicas = await startReplicas(database.url, ['A', 'B'], {
      turnMs: 100,
      leaseMs: LIVE_LEASE_MS,
      args: ['--delegate-tests', url],
    });
  });
  afterAll(async () => {
    await stopAll(replicas);
    if (testAgent !== undefined) {
      testAgent.child.kill('SIGTERM');
      await exitOf(testAgent.child);
    }
    await database?.drop();
  });

  it('R62, R63, R64: a reminder accepted on B is forwarded by A, a cancel on B reaches the copy, and both replicas list it', async () => {
    const [a, b] = replicas as [Replica, Replica];
    const stream = await delegateStreaming(await a.a2a('jsonrpc'), 'Make the retry tests pass');
    await stream.until((item) => delegatedTo(item) !== undefined, 'the delegation of the tests');
    const subTaskId = stream.items.map(delegatedTo).find((id) => id !== undefined) ?? '';

    await b.reminders.grpc.injectTaskReminder({
      taskId: stream.taskId,
      reminder: { id: 'ci-run-89', body: 'CI run 89: a flaky test on runner 7.', source: 'ci' },
    });
    const trail = (state: string) => () =>
      forwardTrail(stream.events).includes(`ci-run-89:${state}`);
    await stream.until(trail('PENDING'), "the copy's acceptance on A's stream");
    await b.reminders.rest.cancelTaskReminder({ taskId: stream.taskId, reminderId: 'ci-run-89' });
    await stream.until(trail('CANCELLED'), "the copy's cancel on A's stream");
    expect(forwardTrail(stream.events)).toEqual(['ci-run-89:PENDING', 'ci-run-89:CANCELLED']);

    for (const replica of [a, b]) {
      const { reminders } = await replica.reminders.jsonrpc.listTaskReminders({
        taskId: stream.taskId,
      });
      expect(
        reminders.map((r) => [r.reminder?.id, r.state]),
        replica.name,
      ).toEqual([['ci-run-89', ReminderState.CANCELLED]]);
      expect(
        reminders[0]?.forwards.map((f) => [f.taskId, f.state]),
        replica.name,
      ).toEqual([[subTaskId, ReminderState.CANCELLED]]);
    }
    const client = await a.a2a('jsonrpc');
    await client.cancelTask(
      { tenant: '', id: stream.taskId, metadata: undefined },
      a2aCallOptions(),
    );
    await stream.closed;
  });
});
