import { Task, TaskState } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus } from '@a2a-js/sdk/server';
import { AgentEvent } from '@a2a-js/sdk/server';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_DISPLACED_EVENT_DELAY_MS } from './limits.js';
import { reminderEventsOf } from './stream-events.js';
import { harness, kinds } from './testing/harness.js';

// R57: displacement events wait on the task's bus and go out together.

const DELAY = 1000;

function status(taskId: string, state: TaskState) {
  return AgentEvent.statusUpdate({
    taskId,
    contextId: `ctx-${taskId}`,
    status: { state, message: undefined, timestamp: '2026-01-01T00:00:01.000Z' },
    metadata: undefined,
  });
}

async function displacing(h: ReturnType<typeof harness>, ids: readonly string[]) {
  for (const id of ids) await h.inject('t1', { id, body: id, dedupeKey: 'k' });
}

describe('R57: delayed displacement events', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('the displacements of several injects go out as one batch once the delay passes', async () => {
    const h = harness({ displacedEventDelayMs: DELAY });
    await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    const sink = h.openBus('t1');
    await displacing(h, ['a', 'b', 'c']);
    expect(sink.batches()).toEqual([]);
    vi.advanceTimersByTime(DELAY - 1);
    expect(sink.batches()).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(sink.batches().map(kinds)).toEqual([['displaced:a', 'displaced:b']]);
    vi.advanceTimersByTime(10 * DELAY);
    expect(sink.batches()).toHaveLength(1);
  });

  it('R67: by default the displacements wait 10 s', async () => {
    const h = harness({ displacedEventDelayMs: 'default' });
    await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    const sink = h.openBus('t1');
    await displacing(h, ['a', 'b']);
    vi.advanceTimersByTime(DEFAULT_DISPLACED_EVENT_DELAY_MS - 1);
    expect(sink.batches()).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(sink.batches().map(kinds)).toEqual([['displaced:a']]);
    expect(DEFAULT_DISPLACED_EVENT_DELAY_MS).toBe(10_000);
  });

  it('publishDelayedEvents sends every waiting batch at once, and once', async () => {
    const h = harness({ displacedEventDelayMs: DELAY });
    const sinks = [];
    for (const id of ['t1', 't2']) {
      await h.saveTask(id, TaskState.TASK_STATE_WORKING);
      sinks.push(h.openBus(id));
      for (const r of ['a', 'b', 'c']) {
        await h.inject(id, { id: `${id}-${r}`, body: r, dedupeKey: 'k' });
      }
    }
    h.service.publishDelayedEvents();
    expect(sinks.map((s) => s.batches().map(kinds))).toEqual([
      [['displaced:t1-a', 'displaced:t1-b']],
      [['displaced:t2-a', 'displaced:t2-b']],
    ]);
    vi.advanceTimersByTime(10 * DELAY);
    h.service.publishDelayedEvents();
    expect(sinks.map((s) => s.batches().length)).toEqual([1, 1]);
  });

  it('the delay must be a timer delay Node keeps', () => {
    for (const bad of [-1, 1.5, Number.NaN, 2 ** 31]) {
      expect(() => harness({ displacedEventDelayMs: bad })).toThrow(RangeError);
    }
    expect(() => harness({ displacedEventDelayMs: 2 ** 31 - 1 })).not.toThrow();
  });

  it('a waiting batch never grows past the R51 bound', async () => {
    // maxLive 2 + maxRetainedFinal 2: at most 4 events in one batch.
    const h = harness({
      displacedEventDelayMs: DELAY,
      limits: { maxLiveRemindersPerTask: 2, maxRetainedFinalRemindersPerTask: 2 },
    });
    await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    const sink = h.openBus('t1');
    await displacing(h, ['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6']);
    vi.advanceTimersByTime(DELAY);
    expect(sink.batches().map(kinds)).toEqual([
      ['displaced:r0', 'displaced:r1', 'displaced:r2', 'displaced:r3'],
      ['displaced:r4', 'displaced:r5'],
    ]);
  });

  it('while events are held the delayed ones join them and go out when the task moves on', async () => {
    const h = harness({ displacedEventDelayMs: DELAY });
    await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
    const sink = h.openBus('t1');
    await h.inject('t1', { id: 'a', body: 'a', dedupeKey: 'k' });
    sink.bus.publish(status('t1', TaskState.TASK_STATE_INPUT_REQUIRED));
    await displacing(h, ['b', 'c']);
    vi.advanceTimersByTime(DELAY);
    expect(sink.batches()).toEqual([]);
    sink.bus.publish(status('t1', TaskState.TASK_STATE_WORKING));
    await Promise.resolve();
    expect(sink.batches().map(kinds)).toEqual([['displaced:a', 'displaced:b']]);
  });

  describe('through the executor wrapper', () => {
    const task = Task.fromJSON({
      id: 't1',
      contextId: 'ctx-t1',
      status: { state: 'TASK_STATE_WORKING' },
    });

    /** An execution that publishes the task, then lets `during` run before it returns. */
    async function run(
      h: ReturnType<typeof harness>,
      bus: ExecutionEventBus,
      during: (bus: ExecutionEventBus) => Promise<void>,
    ) {
      const executor: AgentExecutor = {
        execute: async (_context, eventBus) => {
          eventBus.publish(AgentEvent.task(task));
          await during(eventBus);
        },
        cancelTask: async () => {},
      };
      await h.service.wrapExecutor(executor).execute(h.requestContext(task), bus);
    }

    it('they go out before the next event of the agent', async () => {
      const h = harness({ displacedEventDelayMs: DELAY });
      await h.taskStore.save(task, h.ctx);
      const sink = h.openBus('t1');
      await run(h, sink.bus, async (bus) => {
        await displacing(h, ['a', 'b']);
        bus.publish(status('t1', TaskState.TASK_STATE_INPUT_REQUIRED));
        // Still inside execute: only the agent's event sent them.
        const order = sink.events.map((e) =>
          e.kind === 'statusUpdate'
            ? `${TaskState[e.data.status?.state ?? 0]}:${kinds(reminderEventsOf(e)).join(',')}`
            : e.kind,
        );
        expect(order).toEqual([
          'task',
          'TASK_STATE_WORKING:displaced:a',
          'TASK_STATE_INPUT_REQUIRED:',
        ]);
      });
    });

    it('they go out when execute returns, before the A2A server may close the bus', async () => {
      const h = harness({ displacedEventDelayMs: DELAY });
      await h.taskStore.save(task, h.ctx);
      const sink = h.openBus('t1');
      await run(h, sink.bus, async () => {
        await displacing(h, ['a', 'b']);
        expect(sink.batches()).toEqual([]);
      });
      expect(sink.batches().map(kinds)).toEqual([['displaced:a']]);
    });
  });
});
