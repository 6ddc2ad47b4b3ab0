// The turn bench's fixture (turn-bench.ts): one reminder service in
// this process over the SDK's InMemoryTaskStore and a given reminder store,
// and WORKING tasks whose execution bus has the listener the SDK gives a live
// execution (an ExecutionEventQueue, drained).
import { SendMessageRequest, Task } from '@a2a-js/sdk';
import {
  DefaultExecutionEventBus,
  DefaultExecutionEventBusManager,
  ExecutionEventQueue,
  InMemoryTaskStore,
  RequestContext,
} from '@a2a-js/sdk/server';
import type { ReminderService, ReminderStore } from '@a2a-reminders/core';
import { createReminderService, TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import { InjectTaskReminderRequestSchema } from '@a2a-reminders/proto';
import { create } from '@bufbuild/protobuf';
import { benchCaller } from './seed-tasks.js';

/** Large enough that no reminder of a run expires: the steady state keeps k ACTIVE (R20). */
export const BENCH_TTL_TURNS = 1_000_000_000;

/** One task's execution as the worker's runtime holds it at a turn boundary. */
export interface TurnTask {
  readonly requestContext: RequestContext;
  readonly bus: DefaultExecutionEventBus;
}

export class TurnFixture {
  readonly service: ReminderService;
  private readonly taskStore = new InMemoryTaskStore();
  private readonly context = benchCaller([TASK_REMINDERS_EXTENSION_URI]);
  private next = 0;
  /** Events the tasks' queues delivered, to tell which boundaries published. */
  delivered = 0;

  constructor(store: ReminderStore, maxLive: number) {
    this.service = createReminderService({
      taskStore: this.taskStore,
      eventBusManager: new DefaultExecutionEventBusManager(),
      store,
      limits: { maxLiveRemindersPerTask: Math.max(1, maxLive), maxTtlTurns: BENCH_TTL_TURNS },
    });
  }

  /** A WORKING task holding `k` PENDING reminders, each with a ttl no run uses up. */
  async task(k: number): Promise<TurnTask> {
    this.next += 1;
    const taskId = `turn-task-${this.next}`;
    const task = Task.fromJSON({
      id: taskId,
      contextId: `ctx-${this.next}`,
      status: { state: 'TASK_STATE_WORKING' },
    });
    await this.taskStore.save(task, this.context);
    for (let i = 0; i < k; i += 1) {
      await this.service.injectTaskReminder(
        create(InjectTaskReminderRequestSchema, {
          taskId,
          reminder: {
            id: `r-${i}`,
            body: 'Budget 80% used; wrap up the current step and report.',
            ttlTurns: BENCH_TTL_TURNS,
            source: 'turn-bench',
          },
        }),
        this.context,
      );
    }
    const bus = new DefaultExecutionEventBus();
    this.drain(new ExecutionEventQueue(bus));
    const request = SendMessageRequest.fromJSON({
      message: { messageId: `m-${taskId}`, role: 'ROLE_USER', parts: [{ text: 'work' }] },
    });
    const requestContext = new RequestContext(request, taskId, task.contextId, this.context, task);
    return { requestContext, bus };
  }

  /** As the SDK's result manager would: every event the bus carries is consumed. */
  private drain(queue: ExecutionEventQueue): void {
    void (async () => {
      for await (const _event of queue.events()) this.delivered += 1;
    })();
  }
}
