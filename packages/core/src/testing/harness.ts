import type { TaskState } from '@a2a-js/sdk';
import { SendMessageRequest, Task } from '@a2a-js/sdk';
import type {
  AgentExecutionEvent,
  ExecutionEventBus,
  ServerCallContext,
  User,
} from '@a2a-js/sdk/server';
import {
  ServerCallContext as CallContext,
  DefaultExecutionEventBusManager,
  InMemoryTaskStore,
  RequestContext,
} from '@a2a-js/sdk/server';
import type { TaskReminderEvent } from '@a2a-reminders/proto';
import {
  CancelTaskReminderRequestSchema,
  InjectTaskReminderRequestSchema,
  ListTaskRemindersRequestSchema,
  type TaskReminderSchema,
} from '@a2a-reminders/proto';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { create } from '@bufbuild/protobuf';
import { TASK_REMINDERS_EXTENSION_URI } from '../extension-uri.js';
import type { ReminderLimits } from '../limits.js';
import { createReminderService } from '../reminder-service.js';
import type { ReminderService } from '../service.js';
import type { ReminderStore } from '../store.js';
import { reminderEventsOf } from '../stream-events.js';
import { taskStateName } from '../task-states.js';

export class TestUser implements User {
  constructor(readonly userName: string) {}
  get isAuthenticated(): boolean {
    return true;
  }
}

export interface CallerOptions {
  readonly user?: string;
  readonly tenant?: string;
  readonly activate?: boolean;
}

export function caller(options: CallerOptions = {}): ServerCallContext {
  return new CallContext({
    ...(options.user === undefined ? {} : { user: new TestUser(options.user) }),
    ...(options.tenant === undefined ? {} : { tenant: options.tenant }),
    requestedExtensions: options.activate === false ? [] : [TASK_REMINDERS_EXTENSION_URI],
    requestedVersion: '1.0',
  });
}

export class Clock {
  ms = Date.UTC(2026, 0, 1);
  readonly now = (): Date => new Date(this.ms);
  advance(ms: number): void {
    this.ms += ms;
  }
}

export interface HarnessOptions {
  readonly limits?: Partial<ReminderLimits>;
  readonly requireAuthentication?: boolean;
  readonly store?: ReminderStore;
  /**
   * R57's delay; default 0 here, so each inject's displacement events are
   * one batch at once and tests of other rules see them immediately;
   * `'default'` leaves it to the service (R67).
   */
  readonly displacedEventDelayMs?: number | 'default';
}

export type ReminderInit = MessageInitShape<typeof TaskReminderSchema>;

/** A service on the real SDK stores and bus manager, with a controllable clock. */
export function harness(options: HarnessOptions = {}) {
  const taskStore = new InMemoryTaskStore();
  const busManager = new DefaultExecutionEventBusManager();
  const clock = new Clock();
  const service: ReminderService = createReminderService({
    taskStore,
    eventBusManager: busManager,
    now: clock.now,
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    ...(options.requireAuthentication === undefined
      ? {}
      : { requireAuthentication: options.requireAuthentication }),
    ...(options.store === undefined ? {} : { store: options.store }),
    ...(options.displacedEventDelayMs === 'default'
      ? {}
      : { displacedEventDelayMs: options.displacedEventDelayMs ?? 0 }),
  });
  const ctx = caller();

  async function saveTask(
    id: string,
    state: TaskState,
    context: ServerCallContext = ctx,
  ): Promise<Task> {
    const task = Task.fromJSON({
      id,
      contextId: `ctx-${id}`,
      status: { state: taskStateName(state), timestamp: '2026-01-01T00:00:00.000Z' },
    });
    await taskStore.save(task, context);
    return task;
  }

  /** The task's bus (created), with every event published on it recorded. */
  function openBus(taskId: string, context: ServerCallContext = ctx) {
    const bus = busManager.createOrGetByTaskId(taskId, context);
    const events: AgentExecutionEvent[] = [];
    bus.on('event', (e) => events.push(e));
    return {
      bus,
      events,
      /** Reminder events, batch by batch. */
      batches: (): TaskReminderEvent[][] =>
        events.map((e) => reminderEventsOf(e)).filter((b) => b.length > 0),
    };
  }

  function requestContext(task: Task, context: ServerCallContext = ctx): RequestContext {
    const request = SendMessageRequest.fromJSON({
      message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'go' }], taskId: task.id },
    });
    return new RequestContext(request, task.id, task.contextId, context, task);
  }

  function inject(taskId: string, reminder: ReminderInit, context: ServerCallContext = ctx) {
    return service.injectTaskReminder(
      create(InjectTaskReminderRequestSchema, { taskId, reminder }),
      context,
    );
  }

  function list(taskId: string, context: ServerCallContext = ctx) {
    return service.listTaskReminders(create(ListTaskRemindersRequestSchema, { taskId }), context);
  }

  /** One page of ListTaskReminders (R49): paging fields beside the task id. */
  function listPage(
    taskId: string,
    page: {
      readonly pageSize?: number;
      readonly pageToken?: string;
      readonly liveOnly?: boolean;
      readonly tenant?: string;
    },
    context: ServerCallContext = ctx,
  ) {
    return service.listTaskReminders(
      create(ListTaskRemindersRequestSchema, { ...page, taskId }),
      context,
    );
  }

  function cancel(taskId: string, reminderId: string, context: ServerCallContext = ctx) {
    return service.cancelTaskReminder(
      create(CancelTaskReminderRequestSchema, { taskId, reminderId }),
      context,
    );
  }

  return {
    taskStore,
    busManager,
    clock,
    service,
    ctx,
    saveTask,
    openBus,
    requestContext,
    inject,
    list,
    listPage,
    cancel,
  };
}

export type Harness = ReturnType<typeof harness>;

/** The event kinds of a batch, as `kind:reminderId`. */
export function kinds(events: readonly TaskReminderEvent[]): string[] {
  return events.map((e) => `${e.event.case ?? 'unknown'}:${e.reminderId}`);
}

/** Awaits a rejected promise and returns its error. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

export type { ExecutionEventBus };
