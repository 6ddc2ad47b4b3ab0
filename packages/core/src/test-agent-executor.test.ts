import type {
  Message,
  SendMessageRequest,
  SendMessageResult,
  StreamResponse,
  Task,
  TaskState,
} from '@a2a-js/sdk';
import { ListTasksRequest, Role, TaskState as State } from '@a2a-js/sdk';
import { DefaultRequestHandler } from '@a2a-js/sdk/server';
import { ReminderState } from '@a2a-reminders/proto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { reminderEventsOf } from './stream-events.js';
import { taskStateName } from './task-states.js';
import type {
  TestAgentAck,
  TestAgentCommand,
  TestAgentControlCommand,
} from './test-agent-contract.js';
import {
  hasTestAgentMetadata,
  parseTestAgentAck,
  readTestAgentCommand,
  TEST_AGENT_METADATA_KEY,
  testAgentAckArtifactId,
  testAgentAckOf,
  testAgentCommandOf,
  testAgentMetadata,
  testAgentReply,
} from './test-agent-contract.js';
import { TestAgentExecutor } from './test-agent-executor.js';
import { caller, harness, kinds } from './testing/harness.js';
import { cardOf } from './testing/stock-agent.js';
import { textMessage } from './text-message.js';

// The test-agent contract (docs/conformance-kit.md) on the SDK's stock request
// handler and task store, the executor run through the service's wrapper, as
// an agent under test runs it. Every wait is on observed state (the stored
// task, a stream item, a reply); the timeouts only guard against a hang.

const stacks: Array<{ agent: TestAgentExecutor }> = [];

afterEach(async () => {
  // No execution outlives its test.
  for (const { agent } of stacks.splice(0)) {
    agent.cancelAll();
    await agent.idle();
  }
});

function stack() {
  const h = harness();
  const agent = new TestAgentExecutor({ reminders: h.service });
  const handler = new DefaultRequestHandler(
    cardOf(h),
    h.taskStore,
    h.service.wrapExecutor(agent),
    h.busManager,
  );
  stacks.push({ agent });
  return { h, agent, handler, ...drive(handler) };
}

/** A command message: a user text carrying `command` under the contract's key. */
function commandMessage(command: TestAgentCommand, taskId = ''): Message {
  return {
    ...textMessage(Role.ROLE_USER, { taskId, contextId: '' }, `test agent: ${command.command}`),
    metadata: testAgentMetadata(command),
  };
}

function request(message: Message, returnImmediately = true): SendMessageRequest {
  return {
    tenant: '',
    message,
    configuration: {
      acceptedOutputModes: [],
      taskPushNotificationConfig: undefined,
      returnImmediately,
    },
    metadata: undefined,
  };
}

type Via = 'blocking' | 'returnImmediately' | 'stream';

function drive(handler: DefaultRequestHandler) {
  /** A `hold` (returnImmediately): a new task, or a follow-up on `taskId`; the task it answered with. */
  async function hold(taskId = '') {
    const message = commandMessage({ command: 'hold' }, taskId);
    const result = await handler.sendMessage(request(message), caller());
    if (!('status' in result)) throw new Error('expected a task');
    return { task: result, message };
  }

  /** A control message sent as a new message; the reply it got, and what it says. */
  async function control(command: TestAgentControlCommand, via: Via = 'returnImmediately') {
    const message = commandMessage(command);
    const reply = await replyTo(message, via);
    return { message, reply, ack: testAgentAckOf(reply) };
  }

  async function replyTo(message: Message, via: Via): Promise<SendMessageResult> {
    if (via !== 'stream') {
      return handler.sendMessage(request(message, via === 'returnImmediately'), caller());
    }
    const items: StreamResponse[] = [];
    for await (const item of handler.sendMessageStream(request(message), caller())) {
      items.push(item);
    }
    // A message-only stream: the reply, and nothing else.
    expect(items.map((i) => i.payload?.$case)).toEqual(['message']);
    const payload = items[0]?.payload;
    if (payload?.$case !== 'message') throw new Error('expected a message');
    return payload.value;
  }

  /** The acknowledgement of a control command that was carried out (an error ack fails). */
  async function acknowledged(command: TestAgentControlCommand, via?: Via) {
    const { ack } = await control(command, via);
    if (ack === undefined || 'error' in ack)
      throw new Error(`not carried out: ${JSON.stringify(ack)}`);
    return ack;
  }

  /** The task as GetTask shows it once `done` holds for it. */
  function stored(taskId: string, done: (task: Task) => boolean): Promise<Task> {
    return vi.waitFor(
      async () => {
        const task = await handler.getTask({ tenant: '', id: taskId }, caller());
        if (!done(task)) throw new Error(`task ${taskId} not there yet`);
        return task;
      },
      { timeout: 60_000, interval: 2 },
    );
  }

  const inState = (taskId: string, state: TaskState) =>
    stored(taskId, (t) => t.status?.state === state);

  /** Settles the task: its barrier artifact stored, so everything before it is. */
  async function settle(taskId: string): Promise<Task> {
    const ack = await acknowledged({ command: 'settle', taskId });
    if (ack.command !== 'settle') throw new Error('expected a settle acknowledgement');
    return stored(taskId, (t) => t.artifacts.some((a) => a.artifactId === ack.artifactId));
  }

  /** Every task the store holds for the caller. */
  async function allTasks(): Promise<Task[]> {
    return (await handler.listTasks(ListTasksRequest.fromJSON({}), caller())).tasks;
  }

  return { hold, control, acknowledged, stored, inState, settle, allTasks };
}

/** Reads a stream in the background, keeping every item. */
function collect(stream: AsyncGenerator<StreamResponse>) {
  const items: StreamResponse[] = [];
  let closed = false;
  const done = (async () => {
    for await (const item of stream) items.push(item);
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
        { timeout: 60_000, interval: 2 },
      );
      const ended = done.then(() => {
        if (!items.some(predicate)) throw new Error('the stream ended without the item');
      });
      return Promise.race([arrived, ended]);
    },
  };
}

const isArtifact = (id: string) => (item: StreamResponse) =>
  item.payload?.$case === 'artifactUpdate' && item.payload.value.artifact?.artifactId === id;

function stateOf(item: StreamResponse): TaskState | undefined {
  const payload = item.payload;
  if (payload?.$case === 'task' || payload?.$case === 'statusUpdate') {
    return payload.value.status?.state;
  }
  return undefined;
}

/** What a stream item is, in brief: `task`, `reminders:<kinds>`, `status:<state>`, `artifact:<id>`. */
function describeItem(item: StreamResponse): string {
  const payload = item.payload;
  switch (payload?.$case) {
    case 'task':
      return 'task';
    case 'statusUpdate': {
      const events = reminderEventsOf(item);
      return events.length > 0
        ? `reminders:${kinds(events).join(',')}`
        : `status:${taskStateName(payload.value.status?.state)}`;
    }
    case 'artifactUpdate':
      return `artifact:${payload.value.artifact?.artifactId}`;
    default:
      return String(payload?.$case);
  }
}

describe('test-agent contract: messages', () => {
  it('reads each command from the metadata key, and nothing from a message without it', () => {
    const commands: TestAgentCommand[] = [
      { command: 'hold' },
      { command: 'turn', taskId: 't' },
      { command: 'settle', taskId: 't' },
      { command: 'state', taskId: 't', state: 'AUTH_REQUIRED' },
      { command: 'end', taskId: 't', state: 'REJECTED' },
    ];
    for (const command of commands) {
      expect(commandMessage(command).metadata).toEqual({ [TEST_AGENT_METADATA_KEY]: command });
      expect(testAgentCommandOf(commandMessage(command))).toEqual(command);
    }
    const plain = textMessage(Role.ROLE_USER, { taskId: '', contextId: '' }, 'hello');
    expect(hasTestAgentMetadata(plain)).toBe(false);
    expect(testAgentCommandOf(plain)).toBeUndefined();
  });

  it('carries a message with the key but no command it defines as no command, saying why', () => {
    const withRaw = (raw: unknown): Message => ({
      ...textMessage(Role.ROLE_USER, { taskId: '', contextId: '' }, 'x'),
      metadata: { [TEST_AGENT_METADATA_KEY]: raw },
    });
    for (const raw of [
      { command: 'dance', taskId: 't' },
      { command: 'turn' },
      { command: 'settle', taskId: '' },
      { command: 'state', taskId: 't', state: 'COMPLETED' },
      { command: 'end', taskId: 't', state: 'WORKING' },
      { command: 'state', taskId: 't' },
      'hold',
      null,
    ]) {
      expect(hasTestAgentMetadata(withRaw(raw))).toBe(true);
      expect(testAgentCommandOf(withRaw(raw))).toBeUndefined();
      const read = readTestAgentCommand(withRaw(raw));
      expect(read.ok).toBe(false);
    }
    expect(
      readTestAgentCommand(withRaw({ command: 'end', taskId: 't', state: 'WORKING' })),
    ).toEqual({
      ok: false,
      command: 'end',
      taskId: 't',
      error: 'end: "WORKING" is not one of COMPLETED, FAILED, CANCELED, REJECTED',
    });
  });

  it('reads acknowledgements back from a reply message or its data, and none from a task', () => {
    expect(testAgentAckArtifactId('m-1')).toBe('a2a-reminders-conformance-m-1');
    const acks: TestAgentAck[] = [
      {
        command: 'turn',
        taskId: 't',
        turn: 3,
        reminders: [{ id: 'r', turnsRemaining: 0, firstSurfacing: true }],
      },
      { command: 'settle', taskId: 't', artifactId: testAgentAckArtifactId('m-1') },
      { command: 'state', taskId: 't', state: 'INPUT_REQUIRED' },
      { command: 'end', taskId: 't', state: 'CANCELED' },
      { command: 'turn', taskId: 'gone', error: 'not held' },
    ];
    for (const ack of acks) {
      expect(parseTestAgentAck(JSON.parse(JSON.stringify(ack)))).toEqual(ack);
      const reply = testAgentReply(ack);
      expect(reply).toMatchObject({ role: Role.ROLE_AGENT, taskId: '', contextId: '' });
      expect(testAgentAckOf(reply)).toEqual(ack);
    }
    const task: Task = {
      id: 't',
      contextId: 'c',
      status: undefined,
      history: [],
      artifacts: [],
      metadata: undefined,
    };
    expect(testAgentAckOf(task)).toBeUndefined();
    expect(testAgentAckOf(undefined)).toBeUndefined();
    for (const bad of [
      { command: 'turn', taskId: 't', turn: 1.5, reminders: [] },
      { command: 'turn', taskId: 't', turn: 1, reminders: [{ id: 'r' }] },
      { command: 'turn', turn: 1, reminders: [] },
      { command: 'settle', taskId: 't' },
      { command: 'state', taskId: 't', state: 'COMPLETED' },
      'settle',
    ]) {
      expect(parseTestAgentAck(bad)).toBeUndefined();
    }
  });
});

describe('TestAgentExecutor on the stock request handler', () => {
  it('hold opens a task in WORKING that stays running; its history holds the command', async () => {
    const { hold, inState } = stack();
    const { task, message } = await hold();
    expect(task.status?.state).toBe(State.TASK_STATE_WORKING);
    const stored = await inState(task.id, State.TASK_STATE_WORKING);
    expect(stored.history.map((m) => m.messageId)).toEqual([message.messageId]);
  });

  it('hold over SendStreamingMessage streams the task in WORKING', async () => {
    const { handler } = stack();
    const stream = handler.sendMessageStream(
      request(commandMessage({ command: 'hold' })),
      caller(),
    );
    const first = await stream.next();
    await stream.return(undefined);
    expect(first.value?.payload?.$case).toBe('task');
    expect(first.value && stateOf(first.value)).toBe(State.TASK_STATE_WORKING);
  });

  it.each<Via>(['returnImmediately', 'blocking', 'stream'])(
    'turn (%s) takes a boundary of the held task and answers with a message of its own',
    async (via) => {
      const { h, hold, control, allTasks } = stack();
      const { task } = await hold();
      await h.inject(task.id, { id: 'r1', body: 'SECRET reminder body', ttlTurns: 2 });
      const { message, reply, ack } = await control({ command: 'turn', taskId: task.id }, via);
      expect(ack).toEqual({
        command: 'turn',
        taskId: task.id,
        turn: 1,
        reminders: [{ id: 'r1', turnsRemaining: 1, firstSurfacing: true }],
      });
      // A message of the agent's own: no task, no context, one data part, no reminder text.
      expect(reply).toMatchObject({ role: Role.ROLE_AGENT, taskId: '', contextId: '' });
      expect('messageId' in reply && reply.messageId).not.toBe(message.messageId);
      expect('parts' in reply && reply.parts.map((p) => p.content?.$case)).toEqual(['data']);
      expect(JSON.stringify(reply)).not.toContain('SECRET');
      // The SDK stored no task for the control message: only the held one exists.
      expect((await allTasks()).map((t) => t.id)).toEqual([task.id]);
      expect((await h.list(task.id)).reminders[0]).toMatchObject({
        state: ReminderState.ACTIVE,
        firstTurn: 1,
      });
    },
  );

  it("the held task's streams see only its own execution's events, and stay open across turns", async () => {
    const { h, handler, hold, acknowledged, inState, stored } = stack();
    // The hold's own stream (SendStreamingMessage) and a SubscribeToTask stream.
    const held = collect(
      handler.sendMessageStream(request(commandMessage({ command: 'hold' })), caller()),
    );
    await held.until((item) => item.payload?.$case === 'task');
    const first = held.items[0]?.payload;
    if (first?.$case !== 'task') throw new Error('expected the task');
    const taskId = first.value.id;
    const watched = collect(handler.resubscribe({ tenant: '', id: taskId }, caller()));
    await watched.until((item) => item.payload?.$case === 'task');
    // A task held by hold() alongside, so control messages meet other work on the agent.
    const other = (await hold()).task;

    await h.inject(taskId, { id: 'r1', body: 'first', ttlTurns: 2 });
    for (let turn = 1; turn <= 4; turn += 1) {
      expect(await acknowledged({ command: 'turn', taskId })).toMatchObject({ turn });
      expect(await acknowledged({ command: 'turn', taskId: other.id })).toMatchObject({ turn });
    }
    await h.inject(taskId, { id: 'r2', body: 'second', ttlTurns: 1 });
    expect(await acknowledged({ command: 'turn', taskId })).toMatchObject({ turn: 5 });
    const barrier = await acknowledged({ command: 'settle', taskId });
    const barrierId = barrier.command === 'settle' ? barrier.artifactId : '';
    // Still open and error-free: the barrier reached both streams, and neither ended.
    for (const stream of [held, watched]) {
      await stream.until(isArtifact(barrierId));
      expect(stream.closed).toBe(false);
    }
    await stored(taskId, (t) => t.artifacts.some((a) => a.artifactId === barrierId));

    await acknowledged({ command: 'end', taskId, state: 'COMPLETED' });
    await inState(taskId, State.TASK_STATE_COMPLETED);
    await Promise.all([held.done, watched.done]); // closed by the terminal state, not by an error
    for (const stream of [held, watched]) {
      const items = stream.items.map(describeItem);
      // One task event (the hold's, or the subscription's snapshot), then only what the
      // execution published: reminder batches, settle barriers, and the terminal state.
      expect(items[0]).toBe('task');
      expect(items.filter((i) => i === 'task')).toHaveLength(1);
      expect(items.filter((i) => i.startsWith('status:'))).toEqual(['status:TASK_STATE_COMPLETED']);
      expect(items.at(-1)).toBe('status:TASK_STATE_COMPLETED');
      expect(items.filter((i) => i.startsWith('reminders:'))).toEqual([
        'reminders:emitted:r1',
        'reminders:expired:r1',
        'reminders:emitted:r2',
        'reminders:expired:r2',
      ]);
      expect(items.filter((i) => i.startsWith('artifact:'))).toEqual([`artifact:${barrierId}`]);
    }
    expect(watched.items.every((item) => stateOf(item) !== State.TASK_STATE_FAILED)).toBe(true);
  });

  it('settle publishes a barrier artifact on the held task, stored, and takes no turn', async () => {
    const { h, hold, control, acknowledged, stored } = stack();
    const { task } = await hold();
    await h.inject(task.id, { id: 'p', body: 'pending' });
    const { message, ack } = await control({ command: 'settle', taskId: task.id });
    const artifactId = testAgentAckArtifactId(message.messageId);
    expect(ack).toEqual({ command: 'settle', taskId: task.id, artifactId });
    const settled = await stored(task.id, (t) =>
      t.artifacts.some((a) => a.artifactId === artifactId),
    );
    const artifact = settled.artifacts.find((a) => a.artifactId === artifactId);
    expect(artifact?.parts.map((p) => p.content)).toEqual([
      { $case: 'data', value: { command: 'settle' } },
    ]);
    // No boundary was taken: the reminder is still pending, and the next turn is turn 1.
    expect((await h.list(task.id)).reminders.map((r) => r.state)).toEqual([ReminderState.PENDING]);
    expect(await acknowledged({ command: 'turn', taskId: task.id })).toMatchObject({ turn: 1 });
    expect(settled.status?.state).toBe(State.TASK_STATE_WORKING);
  });

  it('state AUTH_REQUIRED keeps the execution running: a turn still works', async () => {
    const { hold, acknowledged, inState } = stack();
    const { task } = await hold();
    expect(
      await acknowledged({ command: 'state', taskId: task.id, state: 'AUTH_REQUIRED' }),
    ).toEqual({ command: 'state', taskId: task.id, state: 'AUTH_REQUIRED' });
    await inState(task.id, State.TASK_STATE_AUTH_REQUIRED);
    expect(await acknowledged({ command: 'turn', taskId: task.id })).toEqual({
      command: 'turn',
      taskId: task.id,
      turn: 1,
      reminders: [],
    });
    // The control message changed nothing of the task's state.
    await inState(task.id, State.TASK_STATE_AUTH_REQUIRED);
    await acknowledged({ command: 'state', taskId: task.id, state: 'WORKING' });
    await inState(task.id, State.TASK_STATE_WORKING);
  });

  it('state INPUT_REQUIRED ends the execution; a hold follow-up resumes the task to WORKING', async () => {
    const { agent, hold, control, acknowledged, inState } = stack();
    const { task } = await hold();
    expect(await acknowledged({ command: 'turn', taskId: task.id })).toMatchObject({ turn: 1 });
    await acknowledged({ command: 'state', taskId: task.id, state: 'INPUT_REQUIRED' });
    await inState(task.id, State.TASK_STATE_INPUT_REQUIRED);
    await agent.idle(); // the execution ended: nothing of it runs
    // No execution runs to carry a command out: an error acknowledgement, the task untouched.
    const { ack } = await control({ command: 'turn', taskId: task.id });
    expect(ack).toMatchObject({ command: 'turn', taskId: task.id });
    expect(ack && 'error' in ack && ack.error).toMatch(/no running execution/);
    await inState(task.id, State.TASK_STATE_INPUT_REQUIRED);

    const resumed = await hold(task.id);
    expect(resumed.task.status?.state).toBe(State.TASK_STATE_WORKING);
    await inState(task.id, State.TASK_STATE_WORKING);
    // The new execution takes the task's next turn.
    expect(await acknowledged({ command: 'turn', taskId: task.id })).toMatchObject({ turn: 2 });
  });

  it('end COMPLETED ends the task, its reminders ending first (spec: Task end)', async () => {
    const { h, agent, handler, hold, control, acknowledged, inState } = stack();
    const { task } = await hold();
    await h.inject(task.id, { id: 'surfaced', body: 'x', ttlTurns: 5 });
    expect(await acknowledged({ command: 'turn', taskId: task.id })).toMatchObject({ turn: 1 });
    await h.inject(task.id, { id: 'pending', body: 'y' });
    const watched = collect(handler.resubscribe({ tenant: '', id: task.id }, caller()));
    await watched.until((item) => item.payload?.$case === 'task');

    expect(await acknowledged({ command: 'end', taskId: task.id, state: 'COMPLETED' })).toEqual({
      command: 'end',
      taskId: task.id,
      state: 'COMPLETED',
    });
    await inState(task.id, State.TASK_STATE_COMPLETED);
    await watched.done; // the stream closes at the terminal state
    const fates = watched.items.flatMap((item) => kinds(reminderEventsOf(item)));
    expect(fates.sort()).toEqual(['dropped:pending', 'expired:surfaced']);
    const last = watched.items.at(-1);
    expect(last && stateOf(last)).toBe(State.TASK_STATE_COMPLETED);
    const states = (await h.list(task.id)).reminders.map((r) => [r.reminder?.id, r.state]);
    expect(states).toEqual([
      ['surfaced', ReminderState.EXPIRED],
      ['pending', ReminderState.DROPPED],
    ]);
    await agent.idle();
    expect(agent.hasTask(task.id)).toBe(false);
    const after = await control({ command: 'turn', taskId: task.id });
    expect(after.ack && 'error' in after.ack).toBe(true);
  });

  it('end publishes each terminal state the contract names', async () => {
    const { hold, acknowledged, inState } = stack();
    for (const state of ['FAILED', 'CANCELED', 'REJECTED'] as const) {
      const { task } = await hold();
      await acknowledged({ command: 'end', taskId: task.id, state });
      const stored = await inState(task.id, State[`TASK_STATE_${state}`]);
      expect(taskStateName(stored.status?.state)).toBe(`TASK_STATE_${state}`);
      expect(stored.status?.message).toBeUndefined();
    }
  });

  it('answers a command it cannot carry out with an error acknowledgement, failing no task', async () => {
    const { handler, hold, control, stored, allTasks } = stack();
    const { task } = await hold();
    const errorOf = async (metadata: unknown) => {
      const message: Message = {
        ...textMessage(Role.ROLE_USER, { taskId: '', contextId: '' }, 'x'),
        metadata: { [TEST_AGENT_METADATA_KEY]: metadata },
      };
      const ack = testAgentAckOf(await handler.sendMessage(request(message), caller()));
      if (ack === undefined || !('error' in ack)) throw new Error(`expected an error ack: ${ack}`);
      return ack;
    };
    expect(await errorOf({ command: 'turn', taskId: 'no-such-task' })).toEqual({
      command: 'turn',
      taskId: 'no-such-task',
      error: 'turn: task no-such-task is not held by this agent',
    });
    expect(await errorOf({ command: 'dance', taskId: task.id })).toMatchObject({
      command: 'dance',
      taskId: task.id,
    });
    expect(await errorOf({ command: 'turn' })).toMatchObject({ command: 'turn', taskId: '' });
    expect(await errorOf({ command: 'end', taskId: task.id, state: 'WORKING' })).toMatchObject({
      command: 'end',
      taskId: task.id,
    });
    expect(await errorOf({ command: 'state', taskId: task.id, state: 'DONE' })).toMatchObject({
      command: 'state',
    });
    // A message without the metadata, routed here anyway, is no command either.
    const plain = textMessage(Role.ROLE_USER, { taskId: '', contextId: '' }, 'hello');
    expect(testAgentAckOf(await handler.sendMessage(request(plain), caller()))).toMatchObject({
      command: '',
      taskId: '',
    });
    // Another caller's control message does not find the task.
    const foreign = commandMessage({ command: 'turn', taskId: task.id });
    const reply = await handler.sendMessage(request(foreign), caller({ user: 'mallory' }));
    expect(testAgentAckOf(reply)).toMatchObject({ error: expect.stringMatching(/not held/) });

    // The held task runs on untouched: WORKING, no turn taken, and no task was stored for any of these.
    expect(await control({ command: 'turn', taskId: task.id })).toMatchObject({
      ack: { turn: 1 },
    });
    expect((await stored(task.id, () => true)).status?.state).toBe(State.TASK_STATE_WORKING);
    expect((await allTasks()).map((t) => t.id)).toEqual([task.id]);
  });

  it('a control command sent as a follow-up on the task (taskId set) fails it: control messages are new ones', async () => {
    const { agent, handler, hold, inState } = stack();
    const { task } = await hold();
    const followUp = commandMessage({ command: 'turn', taskId: task.id }, task.id);
    await handler.sendMessage(request(followUp), caller()).catch(() => undefined);
    await inState(task.id, State.TASK_STATE_FAILED);
    await agent.idle();
    expect(agent.hasTask(task.id)).toBe(false);
  });

  it('a stock CancelTask ends the task CANCELED and its execution', async () => {
    const { h, agent, handler, hold } = stack();
    const { task } = await hold();
    await h.inject(task.id, { id: 'p', body: 'pending at cancel' });
    const cancelled = await handler.cancelTask({ tenant: '', id: task.id, metadata: {} }, caller());
    expect(cancelled.status?.state).toBe(State.TASK_STATE_CANCELED);
    expect((await h.list(task.id)).reminders.map((r) => r.state)).toEqual([ReminderState.DROPPED]);
    await agent.idle();
    expect(agent.hasTask(task.id)).toBe(false);
  });

  it('carries out commands sent at once one at a time: each turn its own number', async () => {
    const { hold, acknowledged } = stack();
    const { task } = await hold();
    const acks = await Promise.all(
      [1, 2, 3, 4, 5].map(() => acknowledged({ command: 'turn', taskId: task.id })),
    );
    expect(acks.map((a) => (a.command === 'turn' ? a.turn : 0)).sort()).toEqual([1, 2, 3, 4, 5]);
  });

  it("keeps the task's history to its hold messages: no control message, no agent message, no reminder text", async () => {
    const { h, hold, acknowledged, inState } = stack();
    const first = await hold();
    const taskId = first.task.id;
    await h.inject(taskId, { id: 'r', body: 'NEVER-IN-THE-TASK', ttlTurns: 2 });
    expect(await acknowledged({ command: 'turn', taskId })).toMatchObject({ turn: 1 });
    await acknowledged({ command: 'settle', taskId });
    await acknowledged({ command: 'state', taskId, state: 'INPUT_REQUIRED' });
    await inState(taskId, State.TASK_STATE_INPUT_REQUIRED);
    const second = await hold(taskId);
    await inState(taskId, State.TASK_STATE_WORKING);
    expect(await acknowledged({ command: 'turn', taskId })).toMatchObject({ turn: 2 });
    await acknowledged({ command: 'end', taskId, state: 'COMPLETED' });
    const stored = await inState(taskId, State.TASK_STATE_COMPLETED);
    expect(stored.history.map((m) => m.messageId)).toEqual([
      first.message.messageId,
      second.message.messageId,
    ]);
    expect(stored.history.every((m) => m.role === Role.ROLE_USER)).toBe(true);
    expect(stored.status?.message).toBeUndefined();
    expect(JSON.stringify(stored)).not.toContain('NEVER-IN-THE-TASK');
  });

  it('takes 20 turns on one task with a stream open and no MaxListenersExceededWarning', async () => {
    const { h, handler, hold, acknowledged, settle } = stack();
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const { task } = await hold();
      const watched = collect(handler.resubscribe({ tenant: '', id: task.id }, caller()));
      await watched.until((item) => item.payload?.$case === 'task');
      const busListeners = () =>
        h.busManager.getByTaskId(task.id, caller()) === undefined ? -1 : listenerCount(h, task.id);
      const before = busListeners();
      for (let turn = 1; turn <= 20; turn += 1) {
        await h.inject(task.id, { id: `r${turn}`, body: `reminder ${turn}`, ttlTurns: 1 });
        expect(await acknowledged({ command: 'turn', taskId: task.id })).toMatchObject({ turn });
      }
      await settle(task.id);
      await watched.until((item) => reminderEventsOf(item).some((e) => e.reminderId === 'r20'));
      expect(watched.closed).toBe(false);
      // No listener piled up on the held task's bus.
      expect(busListeners()).toBe(before);
      // A warning is emitted on a later tick: one more round trip lets it through.
      await acknowledged({ command: 'settle', taskId: task.id });
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('runs a second task independently: its own turns, its own state', async () => {
    const { h, hold, acknowledged, inState } = stack();
    const a = (await hold()).task;
    const b = (await hold()).task;
    await h.inject(a.id, { id: 'only-a', body: 'x' });
    expect(await acknowledged({ command: 'turn', taskId: a.id })).toMatchObject({ turn: 1 });
    expect(await acknowledged({ command: 'turn', taskId: a.id })).toMatchObject({ turn: 2 });
    expect(await acknowledged({ command: 'turn', taskId: b.id })).toEqual({
      command: 'turn',
      taskId: b.id,
      turn: 1,
      reminders: [],
    });
    await acknowledged({ command: 'end', taskId: a.id, state: 'COMPLETED' });
    await inState(a.id, State.TASK_STATE_COMPLETED);
    expect((await inState(b.id, State.TASK_STATE_WORKING)).id).toBe(b.id);
    expect(await acknowledged({ command: 'turn', taskId: b.id })).toMatchObject({ turn: 2 });
  });
});

/** How many `event` listeners the task's SDK bus has (read from the stock bus's own bookkeeping). */
function listenerCount(h: ReturnType<typeof harness>, taskId: string): number {
  const bus = h.busManager.getByTaskId(taskId, caller()) as unknown as {
    eventListeners?: Map<unknown, unknown[]>;
  };
  if (bus.eventListeners === undefined)
    throw new Error('the stock bus keeps no eventListeners map');
  return [...bus.eventListeners.values()].reduce((n, wrapped) => n + wrapped.length, 0);
}
