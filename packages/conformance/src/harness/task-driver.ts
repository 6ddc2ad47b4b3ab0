import type { Task } from '@a2a-js/sdk';
import { SendMessageRequest, TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import type { ReminderTurn } from '@a2a-reminders/core';
import type { Stack } from './stack.js';
import { StreamWatch } from './stream-watch.js';
import { as } from './users.js';

/** Who acts on a task: an authenticated user (else anonymous) in a tenant (else none). */
export interface Caller {
  readonly user?: string;
  readonly tenant?: string;
}

export type HoldState = 'SUBMITTED' | 'INPUT_REQUIRED' | 'AUTH_REQUIRED' | 'WORKING';
export type EndState = 'COMPLETED' | 'FAILED' | 'CANCELED' | 'REJECTED';

/**
 * Drives tasks of the controllable executor: creates them through the stock
 * SDK client, takes turn boundaries, changes and ends their state, and opens
 * stock-client streams on them. Every step waits until the SDK has persisted
 * (or streamed) what it caused, never on a timer.
 */
export interface TaskDriver {
  /** Creates a task in WORKING via a stock SendMessage (returnImmediately) and returns its id. */
  create(caller?: Caller): Promise<string>;
  /** Marks a turn boundary of the task's running execution (R19). */
  turn(taskId: string): Promise<ReminderTurn>;
  /**
   * Moves the task to a non-terminal state. INPUT_REQUIRED also ends the
   * execution, as an agent waiting for input does; `endExecution` overrides.
   */
  hold(taskId: string, state: HoldState, endExecution?: boolean): Promise<void>;
  /** A follow-up SendMessage on an INPUT_REQUIRED task: a new execution, back in WORKING. */
  resume(taskId: string): Promise<void>;
  /** Publishes a terminal status from the executor and waits until the SDK stored it. */
  end(taskId: string, state: EndState): Promise<void>;
  /**
   * Publishes a barrier (an artifact update) on the task's running execution
   * and waits until the SDK stored it: everything published on the task's bus
   * before it is stored by then.
   */
  settle(taskId: string): Promise<void>;
  /** SubscribeToTask through the stock client; resolves once the task snapshot arrived (the server listens from then on). */
  subscribe(taskId: string, client?: Client): Promise<StreamWatch>;
  /** SendStreamingMessage through the stock client: a new task and its open stream. */
  stream(caller?: Caller): Promise<{ taskId: string; watch: StreamWatch }>;
  getTask(taskId: string): Promise<Task>;
  /** The stock-client call options (auth header) of the task's creator. */
  serviceParametersOf(taskId: string): Record<string, string>;
  tenantOf(taskId: string): string;
}

function message(taskId?: string) {
  return {
    messageId: crypto.randomUUID(),
    role: 'ROLE_USER',
    parts: [{ text: 'work on it' }],
    ...(taskId === undefined ? {} : { taskId }),
  };
}

export function taskDriver(
  stack: Stack,
  sdk: Client,
): TaskDriver & { closeStreams(): Promise<void> } {
  const callers = new Map<string, Caller>();
  const paramsOf = (caller: Caller | undefined): Record<string, string> =>
    caller?.user === undefined ? {} : as(caller.user);
  const watches: StreamWatch[] = [];

  const driver: TaskDriver = {
    async create(caller = {}) {
      const result = await sdk.sendMessage(
        SendMessageRequest.fromJSON({
          tenant: caller.tenant ?? '',
          message: message(),
          configuration: { returnImmediately: true },
        }),
        { serviceParameters: paramsOf(caller) },
      );
      if (!('id' in result)) throw new Error('the agent answered with a message, not a task');
      callers.set(result.id, caller);
      return result.id;
    },
    turn(taskId) {
      const execution = stack.executor.execution(taskId);
      return stack.reminders.beginTurn(execution.requestContext, execution.bus);
    },
    async hold(taskId, state, endExecution = state === 'INPUT_REQUIRED') {
      const value = TaskState[`TASK_STATE_${state}`];
      stack.executor.setState(taskId, value, endExecution);
      await stack.taskStore.waitForState(taskId, value);
    },
    async resume(taskId) {
      const caller = callers.get(taskId);
      await sdk.sendMessage(
        SendMessageRequest.fromJSON({
          tenant: caller?.tenant ?? '',
          message: message(taskId),
          configuration: { returnImmediately: true },
        }),
        { serviceParameters: paramsOf(caller) },
      );
      await stack.taskStore.waitForState(taskId, TaskState.TASK_STATE_WORKING);
    },
    async end(taskId, state) {
      const value = TaskState[`TASK_STATE_${state}`];
      stack.executor.setState(taskId, value, true);
      await stack.taskStore.waitForState(taskId, value);
    },
    async settle(taskId) {
      const artifactId = stack.executor.barrier(taskId);
      await stack.taskStore.waitFor(
        taskId,
        (task) => task.artifacts.some((a) => a.artifactId === artifactId),
        `artifact ${artifactId}`,
      );
    },
    async subscribe(taskId, client = sdk) {
      const caller = callers.get(taskId);
      const controller = new AbortController();
      const watch = new StreamWatch(
        client.resubscribeTask(
          { tenant: caller?.tenant ?? '', id: taskId },
          { signal: controller.signal, serviceParameters: paramsOf(caller) },
        ),
        controller,
      );
      watches.push(watch);
      await watch.until(() => watch.items.length >= 1, 'the SubscribeToTask snapshot');
      return watch;
    },
    async stream(caller = {}) {
      const controller = new AbortController();
      const watch = new StreamWatch(
        sdk.sendMessageStream(
          SendMessageRequest.fromJSON({ tenant: caller.tenant ?? '', message: message() }),
          { signal: controller.signal, serviceParameters: paramsOf(caller) },
        ),
        controller,
      );
      watches.push(watch);
      await watch.until(() => watch.items.length >= 1, 'the SendStreamingMessage task');
      const first = watch.items[0]?.payload;
      if (first?.$case !== 'task') throw new Error('the stream did not open with the task');
      callers.set(first.value.id, caller);
      return { taskId: first.value.id, watch };
    },
    getTask(taskId) {
      const caller = callers.get(taskId);
      return sdk.getTask(
        { tenant: caller?.tenant ?? '', id: taskId },
        { serviceParameters: paramsOf(caller) },
      );
    },
    serviceParametersOf(taskId) {
      return paramsOf(callers.get(taskId));
    },
    tenantOf(taskId) {
      return callers.get(taskId)?.tenant ?? '';
    },
  };
  return Object.assign(driver, {
    async closeStreams() {
      await Promise.all(watches.map((w) => w.close()));
    },
  });
}
