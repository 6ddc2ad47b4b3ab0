import { existsSync } from 'node:fs';
import type { Message, SendMessageRequest, StreamResponse, Task } from '@a2a-js/sdk';
import { Role, TaskState } from '@a2a-js/sdk';
import type { A2AConnection, Binding } from '@a2a-reminders/client';
import { connectToA2AAgent, connectToAgent, delegationRequest } from '@a2a-reminders/client';
import { reminderEventsOf, textMessage } from '@a2a-reminders/core';
import type {
  TestAgentAck,
  TestAgentCommand,
  TestAgentControlCommand,
} from '@a2a-reminders/core/test-agent';
import {
  testAgentAckArtifactId,
  testAgentAckOf,
  testAgentMetadata,
} from '@a2a-reminders/core/test-agent';
import { ReminderState } from '@a2a-reminders/proto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SpawnedWorker } from './testing/spawn-main.js';
import { exitOf, spawnMain, WORKER_MAIN } from './testing/spawn-main.js';
import { startWorker } from './worker-server.js';

// `--test-agent` (docs/conformance-kit.md, "The test-agent contract"), driven
// from outside through the stock SDK client and the reminder client, as the
// conformance kit drives an agent under test. Every wait is on observed state
// (GetTask, a reply, a stream item); the timeouts only guard against a hang.

function commandMessage(command: TestAgentCommand, taskId = ''): Message {
  return {
    ...textMessage(Role.ROLE_USER, { taskId, contextId: '' }, `test agent: ${command.command}`),
    metadata: testAgentMetadata(command),
  };
}

function request(message: Message): SendMessageRequest {
  return {
    tenant: '',
    message,
    // A task the test agent holds never ends by itself: SendMessage returns at its first event.
    configuration: {
      acceptedOutputModes: [],
      taskPushNotificationConfig: undefined,
      returnImmediately: true,
    },
    metadata: undefined,
  };
}

function driver(a2a: A2AConnection) {
  /** A `hold`: a new task, or a follow-up resuming `taskId`; the task it answered with. */
  async function hold(taskId = '') {
    const message = commandMessage({ command: 'hold' }, taskId);
    const result = await a2a.client.sendMessage(request(message), a2a.requestOptions());
    if (!('status' in result)) throw new Error(`expected a task, got ${JSON.stringify(result)}`);
    return { task: result, message };
  }

  /** A control message (a new message naming the held task); the acknowledgement it was answered with. */
  async function control(command: TestAgentControlCommand) {
    const message = commandMessage(command);
    const reply = await a2a.client.sendMessage(request(message), a2a.requestOptions());
    return { message, reply, ack: testAgentAckOf(reply) };
  }

  function stored(taskId: string, done: (task: Task) => boolean): Promise<Task> {
    return vi.waitFor(
      async () => {
        const task = await a2a.client.getTask({ tenant: '', id: taskId }, a2a.requestOptions());
        if (!done(task)) throw new Error(`task ${taskId} not there yet`);
        return task;
      },
      { timeout: 60_000, interval: 20 },
    );
  }

  const inState = (taskId: string, state: TaskState) =>
    stored(taskId, (t) => t.status?.state === state);

  return { hold, control, stored, inState };
}

/** Reads a SubscribeToTask stream in the background, keeping every item. */
function subscribe(a2a: A2AConnection, taskId: string) {
  const items: StreamResponse[] = [];
  let closed = false;
  const done = (async () => {
    for await (const item of a2a.client.resubscribeTask(
      { tenant: '', id: taskId },
      a2a.requestOptions(),
    )) {
      items.push(item);
    }
    closed = true;
  })();
  return {
    items,
    done,
    get closed() {
      return closed;
    },
    /** Resolves once an item matching `predicate` has arrived; fails once the stream ends without one. */
    until(predicate: (item: StreamResponse) => boolean): Promise<void> {
      const arrived = vi.waitFor(
        () => {
          if (!items.some(predicate)) throw new Error('not streamed yet');
        },
        { timeout: 60_000, interval: 20 },
      );
      const ended = done.then(() => {
        if (!items.some(predicate)) throw new Error('the stream ended without the item');
      });
      return Promise.race([arrived, ended]);
    },
  };
}

describe('worker --test-agent', () => {
  let worker: SpawnedWorker;
  let cardUrl: string;

  beforeAll(async () => {
    if (!existsSync(WORKER_MAIN))
      throw new Error(`${WORKER_MAIN} is missing: build the worker first`);
    worker = await spawnMain([
      '--test-agent',
      '--store',
      'memory',
      '--port',
      '0',
      '--grpc-port',
      '0',
      '--turns',
      '2',
      '--turn-ms',
      '0',
    ]);
    cardUrl = `${worker.ready[1]}/.well-known/agent-card.json`;
  });

  afterAll(async () => {
    if (worker === undefined) return;
    worker.child.kill('SIGTERM');
    expect(await exitOf(worker.child)).toBe(0);
  });

  it('says it honours the contract before READY', () => {
    expect(worker.lines).toContain(
      'TEST-AGENT honouring the conformance kit contract (docs/conformance-kit.md)',
    );
  });

  it.each<Binding>(['jsonrpc', 'grpc', 'rest'])(
    'over %s: hold, a reminder injected, turns acknowledged by reply, a stream open throughout, end COMPLETED',
    async (binding) => {
      const agent = await connectToAgent(cardUrl, { binding });
      try {
        const { hold, control, stored, inState } = driver(agent);
        const { task, message: holdMessage } = await hold();
        expect(task.status?.state).toBe(TaskState.TASK_STATE_WORKING);
        await inState(task.id, TaskState.TASK_STATE_WORKING);
        const watched = subscribe(agent, task.id);
        await watched.until((item) => item.payload?.$case === 'task');

        await agent.reminders.injectTaskReminder({
          taskId: task.id,
          reminder: { id: 'api-freeze', body: 'Keep the public API unchanged.', ttlTurns: 3 },
        });
        const first = await control({ command: 'turn', taskId: task.id });
        const ack: TestAgentAck | undefined = first.ack;
        expect(ack).toEqual({
          command: 'turn',
          taskId: task.id,
          turn: 1,
          reminders: [{ id: 'api-freeze', turnsRemaining: 2, firstSurfacing: true }],
        });
        // The reply is a message of the agent's own, on every binding: no task was made for it.
        expect(first.reply).toMatchObject({ role: Role.ROLE_AGENT });
        expect('taskId' in first.reply ? first.reply.taskId : 'a task').toBe('');
        const surfaced = (await agent.reminders.listTaskReminders({ taskId: task.id }))
          .reminders[0];
        expect(surfaced).toMatchObject({ state: ReminderState.ACTIVE, firstTurn: 1 });
        for (const turn of [2, 3]) {
          expect((await control({ command: 'turn', taskId: task.id })).ack).toMatchObject({ turn });
        }

        const settle = await control({ command: 'settle', taskId: task.id });
        const artifactId = testAgentAckArtifactId(settle.message.messageId);
        expect(settle.ack).toEqual({ command: 'settle', taskId: task.id, artifactId });
        await stored(task.id, (t) => t.artifacts.some((a) => a.artifactId === artifactId));
        // The stream saw the barrier and is still open: no ordering violation, no extra task event.
        await watched.until(
          (item) =>
            item.payload?.$case === 'artifactUpdate' &&
            item.payload.value.artifact?.artifactId === artifactId,
        );
        expect(watched.closed).toBe(false);

        const unknown = await control({ command: 'turn', taskId: 'no-such-task' });
        expect(unknown.ack).toMatchObject({ taskId: 'no-such-task', error: expect.any(String) });

        expect(
          (await control({ command: 'end', taskId: task.id, state: 'COMPLETED' })).ack,
        ).toEqual({ command: 'end', taskId: task.id, state: 'COMPLETED' });
        const ended = await inState(task.id, TaskState.TASK_STATE_COMPLETED);
        await watched.done; // closed by the terminal state, not by an error
        const cases = watched.items.map((item) => item.payload?.$case);
        expect(cases.filter((c) => c === 'task')).toHaveLength(1);
        const statuses = watched.items.filter((item) => item.payload?.$case === 'statusUpdate');
        // Every status update but the last carried reminder events; the last is COMPLETED.
        expect(statuses.slice(0, -1).every((item) => reminderEventsOf(item).length > 0)).toBe(true);
        const last = watched.items.at(-1)?.payload;
        expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(
          TaskState.TASK_STATE_COMPLETED,
        );
        // The task's reminders ended with it (spec: Task end).
        const fate = (await agent.reminders.listTaskReminders({ taskId: task.id })).reminders[0];
        expect(fate?.state).toBe(ReminderState.EXPIRED);
        // Only the hold is in the history: no control message, no agent message, no reminder text.
        expect(ended.history.map((m) => m.messageId)).toEqual([holdMessage.messageId]);
        expect(JSON.stringify(ended)).not.toContain('Keep the public API unchanged.');
      } finally {
        agent.close();
      }
    },
  );

  it('over jsonrpc: state INPUT_REQUIRED, then a hold follow-up resumes the task on the test agent', async () => {
    const agent = await connectToA2AAgent(cardUrl, { binding: 'jsonrpc' });
    try {
      const { hold, control, inState } = driver(agent);
      const { task } = await hold();
      await control({ command: 'state', taskId: task.id, state: 'INPUT_REQUIRED' });
      await inState(task.id, TaskState.TASK_STATE_INPUT_REQUIRED);
      const resumed = await hold(task.id);
      expect(resumed.task.status?.state).toBe(TaskState.TASK_STATE_WORKING);
      await inState(task.id, TaskState.TASK_STATE_WORKING);
      expect((await control({ command: 'turn', taskId: task.id })).ack).toMatchObject({ turn: 1 });
      await control({ command: 'end', taskId: task.id, state: 'CANCELED' });
      await inState(task.id, TaskState.TASK_STATE_CANCELED);
    } finally {
      agent.close();
    }
  });

  it('runs any other message as the coding agent, as without the flag', async () => {
    const agent = await connectToA2AAgent(cardUrl, { binding: 'jsonrpc' });
    try {
      const { stored } = driver(agent);
      const result = await agent.client.sendMessage(
        delegationRequest('Fix the flaky date parser test.'),
        agent.requestOptions(),
      );
      if (!('status' in result)) throw new Error('expected a task');
      const done = await stored(
        result.id,
        (t) => t.status?.state === TaskState.TASK_STATE_COMPLETED,
      );
      expect(done.artifacts.map((a) => a.artifactId)).toEqual(['report']);
      expect(done.history.some((m) => m.role === Role.ROLE_AGENT)).toBe(true);
    } finally {
      agent.close();
    }
  });
});

describe('worker in process', () => {
  it('with the test agent, stops cleanly while a held task runs: the task is cancelled', async () => {
    const worker = await startWorker({
      host: '127.0.0.1',
      port: 0,
      grpcPort: 0,
      maxTurns: 1,
      turnMs: 0,
      testAgent: true,
    });
    const agent = await connectToA2AAgent(worker.agentCardUrl, { binding: 'jsonrpc' });
    try {
      const { hold, inState } = driver(agent);
      const { task } = await hold();
      await inState(task.id, TaskState.TASK_STATE_WORKING);
    } finally {
      agent.close();
      // Resolves only once the held execution has ended (cancelAll, then idle).
      await worker.close();
    }
  });

  it('without the test agent, ignores the contract metadata: a hold is a coding task like any other', async () => {
    const worker = await startWorker({
      host: '127.0.0.1',
      port: 0,
      grpcPort: 0,
      maxTurns: 1,
      turnMs: 0,
    });
    const agent = await connectToA2AAgent(worker.agentCardUrl, { binding: 'jsonrpc' });
    try {
      const { hold, inState } = driver(agent);
      const { task } = await hold();
      const done = await inState(task.id, TaskState.TASK_STATE_COMPLETED);
      expect(done.artifacts.map((a) => a.artifactId)).toEqual(['report']);
    } finally {
      agent.close();
      await worker.close();
    }
  });
});
