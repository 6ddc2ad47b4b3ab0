import type { Task, TaskStatus } from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import type { AgentExecutionEvent } from '@a2a-js/sdk/server';
import { timestampMs } from '@bufbuild/protobuf/wkt';
import { describe, expect, it, vi } from 'vitest';
import { reminderBatchOf, reminderEventsOf } from './stream-events.js';
import { caller, harness, kinds } from './testing/harness.js';
import { agentStatus, publishStatus, publishTask, stockAgent } from './testing/stock-agent.js';

// R50: a reminder update repeats the agent's last status verbatim, so the
// SDK's ResultManager stores the same status (message and timestamp) and
// finds the message already in the history.

/** Every event published on the task's SDK bus from now on. */
function record(h: ReturnType<typeof harness>, taskId: string): AgentExecutionEvent[] {
  const bus = h.busManager.getByTaskId(taskId, caller());
  if (bus === undefined) throw new Error(`task ${taskId} has no bus`);
  const events: AgentExecutionEvent[] = [];
  bus.on('event', (e) => events.push(e));
  return events;
}

function reminderUpdates(events: readonly AgentExecutionEvent[]): TaskStatus[] {
  return events
    .filter((e) => reminderEventsOf(e).length > 0)
    .map((e) => (e.kind === 'statusUpdate' ? e.data.status : undefined))
    .filter((s): s is TaskStatus => s !== undefined);
}

function storedKinds(task: Task): string[] {
  return kinds(reminderBatchOf({ taskId: task.id, metadata: task.metadata })?.events ?? []);
}

function historyIds(task: Task | undefined): string[] {
  return (task?.history ?? []).map((m) => m.messageId);
}

describe('R50: reminder updates keep the agent status', () => {
  it('R50: a reminder update repeats the WORKING status verbatim; the stored status and history are unchanged', async () => {
    const h = harness();
    let working: TaskStatus | undefined;
    const agent = stockAgent(h, (rc, bus) => {
      publishTask(bus, rc, {
        state: TaskState.TASK_STATE_WORKING,
        message: undefined,
        timestamp: undefined,
      });
      working = agentStatus(rc, TaskState.TASK_STATE_WORKING, 'reading the repository');
      publishStatus(bus, rc, working);
      return 'wait';
    });
    const taskId = await agent.send('go');
    const before = await agent.stored(taskId, (t) => t.status?.message !== undefined);
    const events = record(h, taskId);

    await h.inject(taskId, { id: 'a', body: 'x', dedupeKey: 'k' });
    await h.inject(taskId, { id: 'b', body: 'y', dedupeKey: 'k' });
    await h.service.beginTurn(agent.current().rc, agent.current().bus);

    expect(reminderUpdates(events)).toEqual([working, working]);
    const after = await agent.stored(taskId, (t) => storedKinds(t).includes('emitted:b'));
    expect(after.status).toEqual(working);
    expect(historyIds(after)).toEqual(historyIds(before));
    expect(historyIds(after)).toContain(working?.message?.messageId);
    // The status keeps the agent's timestamp; the events carry their own time.
    const batch = reminderBatchOf(events.at(-1));
    const eventTime = batch?.events[0]?.eventTime;
    expect(eventTime && timestampMs(eventTime)).toBe(h.clock.ms);
    expect(after.status?.timestamp).toBe(working?.timestamp);
    expect(Date.parse(after.status?.timestamp ?? '')).not.toBe(h.clock.ms);
  });

  it('R50: an AUTH_REQUIRED task keeps its sign-in instructions through injects and cancels', async () => {
    const h = harness();
    let auth: TaskStatus | undefined;
    const agent = stockAgent(h, (rc, bus) => {
      publishTask(bus, rc, agentStatus(rc, TaskState.TASK_STATE_SUBMITTED, 'queued'));
      auth = agentStatus(rc, TaskState.TASK_STATE_AUTH_REQUIRED, 'Sign in at https://auth.example');
      publishStatus(bus, rc, auth);
      return 'wait';
    });
    const taskId = await agent.send('go');
    const before = await agent.stored(
      taskId,
      (t) => t.status?.state === TaskState.TASK_STATE_AUTH_REQUIRED,
    );
    const events = record(h, taskId);

    await h.inject(taskId, { id: 'a', body: 'x' });
    await h.cancel(taskId, 'a');

    expect(reminderUpdates(events)).toEqual([auth]);
    const after = await agent.stored(taskId, (t) => storedKinds(t).includes('cancelled:a'));
    expect(after.status).toEqual(auth);
    expect(historyIds(after)).toEqual(historyIds(before));
  });

  it('R50: a status that came in a task event, its message not in history, holds the batch until the next status update', async () => {
    const h = harness();
    let opening: TaskStatus | undefined;
    const agent = stockAgent(h, (rc, bus) => {
      opening = agentStatus(rc, TaskState.TASK_STATE_WORKING, 'opening');
      publishTask(bus, rc, opening);
      return 'wait';
    });
    const taskId = await agent.send('go');
    const before = await agent.stored(taskId, () => true);
    expect(historyIds(before)).not.toContain(opening?.message?.messageId);
    const events = record(h, taskId);

    await h.inject(taskId, { id: 'a', body: 'x', dedupeKey: 'k' });
    await h.inject(taskId, { id: 'b', body: 'y', dedupeKey: 'k' });
    await h.service.beginTurn(agent.current().rc, agent.current().bus);
    // Published now, a copy would either drop the message or add it to history.
    expect(reminderUpdates(events)).toEqual([]);
    expect((await h.list(taskId)).reminders.map((r) => r.reminder?.id)).toEqual(['a', 'b']);

    const next = agentStatus(agent.current().rc, TaskState.TASK_STATE_WORKING, 'step 1');
    publishStatus(agent.current().bus, agent.current().rc, next);
    const after = await agent.stored(taskId, (t) => storedKinds(t).length > 0);
    // One update, right after the status update, in order, repeating it.
    expect(events.map((e) => e.kind)).toEqual(['statusUpdate', 'statusUpdate']);
    expect(reminderUpdates(events)).toEqual([next]);
    expect(storedKinds(after)).toEqual(['displaced:a', 'emitted:b']);
    expect(after.status).toEqual(next);
    expect(historyIds(after)).toEqual([...historyIds(before), next.message?.messageId]);
  });

  it('R50, R27: events held because the message is not in history reach the stream before the SDK ends a throwing execution', async () => {
    const h = harness();
    const agent = stockAgent(h, (rc, bus) => {
      publishTask(bus, rc, agentStatus(rc, TaskState.TASK_STATE_WORKING, 'opening'));
      return 'wait';
    });
    const taskId = await agent.send('go');
    const before = await agent.stored(taskId, () => true);
    const events = record(h, taskId);
    await h.inject(taskId, { id: 'a', body: 'x' });
    expect(reminderUpdates(events)).toEqual([]);

    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    agent.current().fail(new Error('model unreachable'));
    const after = await agent.stored(
      taskId,
      (t) => t.status?.state === TaskState.TASK_STATE_FAILED,
    );
    await vi.waitFor(() => expect(events.length).toBeGreaterThanOrEqual(3), {
      timeout: 60_000,
      interval: 2,
    });
    errors.mockRestore();

    // The held fate goes out first, then the SDK's own FAILED task and status update.
    expect(events.map((e) => e.kind)).toEqual(['statusUpdate', 'task', 'statusUpdate']);
    expect(kinds(reminderEventsOf(events[0]))).toEqual(['dropped:a']);
    // The SDK's FAILED events set status and history as they do without
    // reminders: its error message, appended once; nothing of the copy stays.
    const failed = events[1]?.kind === 'task' ? events[1].data.status : undefined;
    expect(after.status).toEqual(failed);
    expect(historyIds(after)).toEqual([...historyIds(before), failed?.message?.messageId]);
  });

  it('R51: a task held for long keeps only its newest events, as many as it can list records', async () => {
    // Held at most maxLive + maxRetainedFinal = 4 events.
    const h = harness({
      limits: { maxLiveRemindersPerTask: 2, maxRetainedFinalRemindersPerTask: 2 },
    });
    const agent = stockAgent(h, (rc, bus) => {
      publishTask(bus, rc, agentStatus(rc, TaskState.TASK_STATE_WORKING, 'opening'));
      return 'wait';
    });
    const taskId = await agent.send('go');
    await agent.stored(taskId, () => true);
    const events = record(h, taskId);
    // A monitor keeps firing: each inject displaces the previous one.
    for (let i = 0; i < 10; i += 1)
      await h.inject(taskId, { id: `r${i}`, body: 'x', dedupeKey: 'k' });
    expect(reminderUpdates(events)).toEqual([]);

    const { rc, bus } = agent.current();
    const next = agentStatus(rc, TaskState.TASK_STATE_WORKING, 'step 1');
    publishStatus(bus, rc, next);
    const after = await agent.stored(taskId, (t) => storedKinds(t).length > 0);
    const newest = ['displaced:r5', 'displaced:r6', 'displaced:r7', 'displaced:r8'];
    expect(kinds(reminderEventsOf(events.at(-1)))).toEqual(newest);
    expect(storedKinds(after)).toEqual(newest);
    // What the batch no longer names is what the list no longer holds either.
    expect((await h.list(taskId)).reminders.map((r) => r.reminder?.id)).toEqual(['r7', 'r8', 'r9']);
  });

  it('R50: events held while INPUT_REQUIRED go out after the answer repeating the resumed status, message included', async () => {
    const h = harness();
    let question: TaskStatus | undefined;
    const agent = stockAgent(h, (rc, bus) => {
      if (rc.task === undefined) {
        publishTask(bus, rc, agentStatus(rc, TaskState.TASK_STATE_WORKING, 'looking'));
        question = agentStatus(rc, TaskState.TASK_STATE_INPUT_REQUIRED, 'Which branch?');
        publishStatus(bus, rc, question);
        return 'return';
      }
      // The answer: a new execution that opens with a task event with a message.
      publishTask(bus, rc, agentStatus(rc, TaskState.TASK_STATE_WORKING, 'resuming'));
      return 'wait';
    });
    const taskId = await agent.send('go');
    await agent.stored(taskId, (t) => t.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED);
    const events = record(h, taskId);
    await h.inject(taskId, { id: 'a', body: 'x', dedupeKey: 'k' });
    await h.inject(taskId, { id: 'b', body: 'y', dedupeKey: 'k' });
    expect(reminderUpdates(events)).toEqual([]);
    const asked = await agent.stored(taskId, () => true);
    expect(asked.status).toEqual(question);

    await agent.send('main', taskId);
    const resumed = await agent.stored(
      taskId,
      (t) => t.status?.state === TaskState.TASK_STATE_WORKING,
    );
    expect(reminderUpdates(events)).toEqual([]);
    const { rc, bus } = agent.current();
    const step = agentStatus(rc, TaskState.TASK_STATE_WORKING, 'on branch main');
    publishStatus(bus, rc, step);
    const after = await agent.stored(taskId, (t) => storedKinds(t).length > 0);
    expect(reminderUpdates(events)).toEqual([step]);
    expect(storedKinds(after)).toEqual(['displaced:a']);
    expect(after.status).toEqual(step);
    expect(historyIds(after)).toEqual([...historyIds(resumed), step.message?.messageId]);
  });

  it('R50: a status loaded with its task is repeated when its history holds the message, held otherwise', async () => {
    const h = harness();
    const rcOf = async (id: string) =>
      h.requestContext(await h.saveTask(id, TaskState.TASK_STATE_WORKING));
    for (const [taskId, inHistory] of [
      ['kept', true],
      ['held', false],
    ] as const) {
      const status = agentStatus(await rcOf(taskId), TaskState.TASK_STATE_AUTH_REQUIRED, 'Sign in');
      const loaded = (await h.taskStore.load(taskId, caller())) as Task;
      await h.taskStore.save(
        { ...loaded, status, history: inHistory && status.message ? [status.message] : [] },
        caller(),
      );
      // A bus the service has not seen an event on: the status comes from the store.
      const sink = h.openBus(taskId);
      await h.inject(taskId, { id: 'a', body: 'x', dedupeKey: 'k' });
      await h.inject(taskId, { id: 'b', body: 'y', dedupeKey: 'k' });
      expect(reminderUpdates(sink.events), taskId).toEqual(inHistory ? [status] : []);
    }
  });
});
