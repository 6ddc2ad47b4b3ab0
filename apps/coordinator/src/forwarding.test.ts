import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { TaskState } from '@a2a-js/sdk';
import type { Binding } from '@a2a-reminders/client';
import { BINDINGS, delegationRequest } from '@a2a-reminders/client';
import { isTerminalState, ReminderError, reminderEventsOf } from '@a2a-reminders/core';
import type { TaskReminderEvent } from '@a2a-reminders/proto';
import { ReminderState } from '@a2a-reminders/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listCommand } from './commands.js';
import type { ForwardingDemoResult } from './forwarding-demo.js';
import { CI_REMINDER, runForwardingDemo } from './forwarding-demo.js';
import { progressOf, taskStateOf } from './stream-items.js';
import type { WorkerConnection } from './worker-connection.js';
import { connectToWorker } from './worker-connection.js';
import type { WorkerProcess } from './worker-process.js';
import { spawnWorker, stopWorker } from './worker-process.js';

// Spec §15 between real processes, on each binding: a worker delegating its
// test steps to a test agent (another worker process) over that binding, and
// the coordinator reaching the worker over the same binding.

const WORKER_MAIN = fileURLToPath(new URL('../../worker/dist/main.js', import.meta.url));

const cardOf = (w: WorkerProcess) => `${w.httpBaseUrl}/.well-known/agent-card.json`;

/** `id:state` (or `id:refusal`) of each `forward` event, in stream order. */
function forwardTrail(events: readonly TaskReminderEvent[]): string[] {
  return events.flatMap((e) =>
    e.event.case === 'forward'
      ? [`${e.reminderId}:${e.event.value.refusal || ReminderState[e.event.value.state]}`]
      : [],
  );
}

describe.each(BINDINGS)('forwarding over %s between worker processes', (binding: Binding) => {
  const started: WorkerProcess[] = [];
  const logs: string[] = [];
  const start = async (args: readonly string[]) => {
    const worker = await spawnWorker(
      WORKER_MAIN,
      ['--port', '0', '--grpc-port', '0', '--store', 'memory', ...args],
      // The SDK logs the refusals these tests provoke; kept for failure messages.
      { onStderr: (line) => logs.push(line) },
    );
    started.push(worker);
    return worker;
  };
  /** A test agent started with `args` and a worker delegating its test steps to it. */
  const delegatingPair = async (args: readonly string[]) => {
    const testAgent = await start(['--turns', '0', '--turn-ms', '500', ...args]);
    const worker = await start([
      '--turn-ms',
      '300',
      '--delegate-tests',
      testAgent.httpBaseUrl,
      '--delegate-binding',
      binding,
    ]);
    return { testAgent, worker };
  };

  let demo: ForwardingDemoResult;
  /** The chain's two agents, as the coordinator's commands reach them. */
  let agents: { worker: string; testAgent: string };

  beforeAll(async () => {
    if (!existsSync(WORKER_MAIN)) throw new Error(`${WORKER_MAIN} is missing: build the worker`);
    // No turn limit: the test agent's run ends when a forwarded budget alert
    // makes its model wrap up, so no step of the chain waits on a clock.
    const { testAgent, worker } = await delegatingPair(['--name', 'test agent']);
    agents = { worker: cardOf(worker), testAgent: cardOf(testAgent) };
    const lines: string[] = [];
    demo = await runForwardingDemo({
      worker: { url: cardOf(worker), binding, headers: {} },
      testAgent: { url: cardOf(testAgent), binding, headers: {} },
      write: (line) => lines.push(line),
      timeoutMs: 110_000,
    });
    if (!demo.ok) throw new Error([...lines, '-- workers', ...logs].join('\n'));
  });

  afterAll(async () => {
    await Promise.all(started.map((w) => stopWorker(w.child)));
  });

  it('R58, R62: each reminder reaches the sub-task once, as a copy whose provenance names the original', () => {
    expect(demo.problems).toEqual([]);
    expect(demo.copies.map((c) => c.reminder?.id)).toEqual([
      'ci-run-89',
      'runner-drain',
      'ci-run-90',
      'cost-95',
    ]);
    const ci = demo.copies[0]?.reminder;
    expect(ci).toMatchObject({
      body: CI_REMINDER.body,
      dedupeKey: CI_REMINDER.dedupeKey,
      source: 'ci',
      provenance: { hops: [{ taskId: demo.taskId, reminderId: 'ci-run-89', source: 'ci' }] },
    });
    // Forwarded while the worker's task was blocked in its test step: still all its turns.
    expect(ci?.ttlTurns).toBe(CI_REMINDER.ttlTurns);
  });

  it('the coordinator lists where each reminder went, and where each copy came from', async () => {
    const list = async (url: string, taskId: string) => {
      const lines: string[] = [];
      const connection = { url, binding, headers: {} };
      await listCommand(
        { kind: 'list', connection, tenant: '', taskId, liveOnly: false, json: false },
        (line) => lines.push(line),
      );
      return lines.join('\n');
    };
    expect(await list(agents.worker, demo.taskId)).toMatch(
      new RegExp(`^ci-run-89 +DISPLACED .*copy in task ${demo.subTaskId}: DISPLACED$`, 'm'),
    );
    expect(await list(agents.testAgent, demo.subTaskId)).toMatch(
      new RegExp(
        `^ci-run-90 +EXPIRED .*forwarded from task ${demo.taskId}/ci-run-90 \\(ci\\)$`,
        'm',
      ),
    );
  });

  it('R63: a newer reminder with the same dedupe key displaces the copy in the sub-task as it does the original', () => {
    const copy = (id: string) => demo.copies.find((c) => c.reminder?.id === id);
    expect([copy('ci-run-89')?.state, copy('ci-run-89')?.displacedBy]).toEqual([
      ReminderState.DISPLACED,
      'ci-run-90',
    ]);
    const original = demo.records.find((r) => r.reminder?.id === 'ci-run-89');
    expect([original?.state, original?.displacedBy]).toEqual([
      ReminderState.DISPLACED,
      'ci-run-90',
    ]);
  });

  it("R63: cancelling the original cancels its copy, and every copy's fate comes back on the stream and the record", () => {
    expect(forwardTrail(demo.events)).toEqual(
      expect.arrayContaining(['runner-drain:PENDING', 'runner-drain:CANCELLED']),
    );
    const ciTrail = forwardTrail(demo.events).filter((t) => t.startsWith('ci-run-89:'));
    expect(ciTrail).toEqual(['ci-run-89:PENDING', 'ci-run-89:ACTIVE', 'ci-run-89:DISPLACED']);
    for (const record of demo.records) {
      const copy = demo.copies.find((c) => c.reminder?.id === record.reminder?.id);
      expect(record.forwards.map((f) => [f.taskId, f.state])).toEqual([
        [demo.subTaskId, copy?.state],
      ]);
    }
    // A forward report is not a fate: each original still has exactly one final event (R18).
    for (const id of ['ci-run-89', 'runner-drain', 'ci-run-90', 'cost-95']) {
      const finals = demo.events.filter(
        (e) => e.reminderId === id && e.event.case !== 'forward' && e.event.case !== 'emitted',
      );
      expect(finals, id).toHaveLength(1);
    }
  });

  /**
   * Delegates a task, injects CI's reminder once the test step is delegated,
   * and cancels the task once `cancelWhen` holds of its forward trail: the
   * test agent has no turn limit, so only that cancel ends the run, and no
   * step depends on how fast the machine is.
   */
  const delegateThenCancel = async (
    connection: WorkerConnection,
    cancelWhen: (trail: readonly string[]) => boolean,
  ) => {
    const sent = await connection.client.sendMessage(
      delegationRequest('Make the retry tests pass'),
      connection.requestOptions(),
    );
    if (!('status' in sent)) throw new Error('expected a task');
    const events: TaskReminderEvent[] = [];
    let subTaskId = '';
    let finalState: ReturnType<typeof taskStateOf>;
    let cancelSent = false;
    for await (const item of connection.client.resubscribeTask(
      { tenant: '', id: sent.id },
      connection.requestOptions(),
    )) {
      const delegated = /as task (\S+)$/.exec(progressOf(item)?.text ?? '');
      if (delegated?.[1] !== undefined && subTaskId === '') {
        subTaskId = delegated[1];
        await connection.reminders.injectTaskReminder({ taskId: sent.id, reminder: CI_REMINDER });
      }
      events.push(...reminderEventsOf(item));
      if (!cancelSent && cancelWhen(forwardTrail(events))) {
        cancelSent = true;
        await connection.client.cancelTask(
          { tenant: '', id: sent.id, metadata: undefined },
          connection.requestOptions(),
        );
      }
      if (isTerminalState(taskStateOf(item))) {
        finalState = taskStateOf(item);
        break;
      }
    }
    return { taskId: sent.id, subTaskId, events, finalState };
  };

  it("R60: a test agent that takes no forwarded reminder refuses the copy, and the refusal is on the original's record and stream", async () => {
    const { testAgent, worker } = await delegatingPair(['--max-forward-hops', '0']);
    const connection = await connectToWorker({ url: cardOf(worker), binding, headers: {} });
    const sub = await connectToWorker({ url: cardOf(testAgent), binding, headers: {} });
    try {
      const run = await delegateThenCancel(connection, (trail) => trail.length > 0);
      expect(forwardTrail(run.events)).toEqual(['ci-run-89:FORWARD_HOP_LIMIT_EXCEEDED']);
      const record = (await connection.reminders.listTaskReminders({ taskId: run.taskId }))
        .reminders[0];
      expect(record?.forwards.map((f) => [f.taskId, f.state, f.refusal])).toEqual([
        [run.subTaskId, ReminderState.UNSPECIFIED, 'FORWARD_HOP_LIMIT_EXCEEDED'],
      ]);
      // The original lives its own life in the worker's task all the same: it
      // never reached a turn there before the cancel (R27).
      expect(record?.state).toBe(ReminderState.DROPPED);
      const copies = await sub.reminders.listTaskReminders({ taskId: run.subTaskId });
      expect(copies.reminders).toEqual([]);
    } finally {
      connection.close();
      sub.close();
    }
  });

  it("cancelling the worker's task cancels the sub-task it delegated, whose copies end there", async () => {
    const { testAgent, worker } = await delegatingPair([]);
    const connection = await connectToWorker({ url: cardOf(worker), binding, headers: {} });
    const sub = await connectToWorker({ url: cardOf(testAgent), binding, headers: {} });
    try {
      // Cancelled once the copy is in the sub-task.
      const run = await delegateThenCancel(connection, (trail) =>
        trail.includes('ci-run-89:PENDING'),
      );
      expect(run.finalState).toBe(TaskState.TASK_STATE_CANCELED);
      const subTaskOf = () =>
        sub.client.getTask({ tenant: '', id: run.subTaskId }, sub.requestOptions());
      let subTask = await subTaskOf();
      while (!isTerminalState(subTask.status?.state)) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        subTask = await subTaskOf();
      }
      expect(subTask.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      const copy = (await sub.reminders.listTaskReminders({ taskId: run.subTaskId })).reminders[0];
      expect([ReminderState.DROPPED, ReminderState.EXPIRED]).toContain(copy?.state);
    } finally {
      connection.close();
      sub.close();
    }
  });

  it('R60, R61: an inject past the hop limit, or one that would loop, gets its typed error over the wire', async () => {
    const worker = await start(['--turns', '0', '--turn-ms', '500', '--max-forward-hops', '2']);
    const connection = await connectToWorker({ url: cardOf(worker), binding, headers: {} });
    try {
      const sent = await connection.client.sendMessage(
        delegationRequest('Make the retry tests pass'),
        connection.requestOptions(),
      );
      if (!('status' in sent)) throw new Error('expected a task');
      const hop = (taskId: string) => ({ taskId, reminderId: 'ci-run-89', source: 'ci' });
      const inject = (hops: ReturnType<typeof hop>[]) =>
        connection.reminders.injectTaskReminder({
          taskId: sent.id,
          reminder: { id: `r-${hops.length}`, body: 'CI is red', provenance: { hops } },
        });
      const tooDeep = await inject([hop('a'), hop('b'), hop('c')]).catch((e: unknown) => e);
      expect(tooDeep).toBeInstanceOf(ReminderError);
      expect(tooDeep).toMatchObject({
        code: 'FORWARD_HOP_LIMIT_EXCEEDED',
        metadata: { taskId: sent.id, hops: '3', limit: '2' },
        fieldViolations: [{ field: 'reminder.provenance.hops' }],
      });
      const loop = await inject([hop('a'), hop(sent.id)]).catch((e: unknown) => e);
      expect(loop).toBeInstanceOf(ReminderError);
      expect(loop).toMatchObject({
        code: 'FORWARD_LOOP',
        metadata: { taskId: sent.id, hop: '1' },
        fieldViolations: [{ field: 'reminder.provenance.hops[1].taskId' }],
      });
      // Neither refusal touched the task: exactly the limit is taken.
      const accepted = await inject([hop('a'), hop('b')]);
      expect(accepted.record?.reminder?.provenance?.hops).toHaveLength(2);
      await connection.client.cancelTask(
        { tenant: '', id: sent.id, metadata: undefined },
        connection.requestOptions(),
      );
    } finally {
      connection.close();
    }
  });
});
