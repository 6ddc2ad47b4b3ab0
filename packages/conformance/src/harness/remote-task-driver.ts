import type { Task } from '@a2a-js/sdk';
import { SendMessageRequest, TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import type { ReminderClient, ReminderTurn, SurfacedReminder } from '@a2a-reminders/core';
import { isTerminalState, reminderPages, taskStateName } from '@a2a-reminders/core';
import type {
  TestAgentAck,
  TestAgentCommand,
  TestAgentControlCommand,
} from '@a2a-reminders/core/test-agent';
import {
  testAgentAckOf,
  testAgentMetadata,
  testAgentTaskState,
} from '@a2a-reminders/core/test-agent';
import type { ExchangeLog } from './exchange-log.js';
import { notObservable } from './not-observable.js';
import { StreamWatch } from './stream-watch.js';
import type { Caller, TaskDriver } from './task-driver.js';
import { poll } from './wait.js';

export interface RemoteDriverOptions {
  readonly binding: string;
  /** Sent on every call (the kit's `--header`s). */
  readonly headers: Readonly<Record<string, string>>;
  /** The reminder client, to read a turn's reminders' content (an acknowledgement names ids only). */
  readonly reminders: ReminderClient;
  readonly log: ExchangeLog;
}

/**
 * Drives tasks of an agent under test through the test-agent contract
 * (docs/conformance-kit.md): each step is a command message sent with the
 * stock SDK client, and waits until GetTask shows what it caused, never on a
 * timer. Callers other than the kit's own (named users, tenants) cannot be
 * made from outside, so a case that needs them is not observable.
 */
export function remoteTaskDriver(
  sdk: Client,
  options: RemoteDriverOptions,
): TaskDriver & { close(): Promise<void> } {
  const { binding, headers, log } = options;
  const call = { serviceParameters: { ...headers } };
  const created = new Set<string>();
  const watches: StreamWatch[] = [];

  const message = (command: TestAgentCommand, taskId?: string) => ({
    // A control command travels as a message of its own; only `hold` names a task (a resume).
    messageId: crypto.randomUUID(),
    role: 'ROLE_USER',
    parts: [{ text: `conformance kit: ${command.command}` }],
    metadata: testAgentMetadata(command),
    ...(taskId === undefined ? {} : { taskId }),
  });

  const getTask = (taskId: string): Promise<Task> =>
    log.record('GetTask', binding, { id: taskId }, () =>
      sdk.getTask({ tenant: '', id: taskId }, call),
    );

  /**
   * Polls GetTask until `check` holds for the task (it may throw to give up);
   * only the last answer is recorded, so a failure shows what the agent last said.
   */
  const pollTask = async (
    taskId: string,
    check: (task: Task) => boolean,
    what: string,
  ): Promise<void> => {
    let last: Task | undefined;
    let failure: unknown;
    try {
      await poll(async () => {
        last = await sdk.getTask({ tenant: '', id: taskId }, call);
        return check(last);
      }, what);
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      const seen = last;
      await log
        .record(`GetTask (polled for ${what})`, binding, { id: taskId }, async () => {
          if (failure !== undefined) throw failure;
          return seen ?? null;
        })
        .catch(() => undefined);
    }
  };

  /** Sends a command without waiting for the agent to carry it out; returns the task as answered. */
  const send = async (command: TestAgentCommand, taskId?: string): Promise<Task> => {
    const request = SendMessageRequest.fromJSON({
      message: message(command, taskId),
      configuration: { returnImmediately: true },
    });
    const result = await log.record('SendMessage', binding, request, () =>
      sdk.sendMessage(request, call),
    );
    if (!('id' in result)) {
      throw new Error(
        `test-agent contract: the agent answered ${command.command} with a message, not a task`,
      );
    }
    return result;
  };

  const untilState = (taskId: string, state: TaskState, what: string): Promise<void> =>
    pollTask(
      taskId,
      (task) => {
        const now = task.status?.state;
        if (now !== state && isTerminalState(now)) {
          throw new Error(
            `test-agent contract: waiting for ${what}, the task ended ${taskStateName(now)}`,
          );
        }
        return now === state;
      },
      what,
    );

  /**
   * Sends a control command (a message of its own, naming the held task)
   * and returns the acknowledgement the agent answered with.
   */
  const control = async <C extends TestAgentControlCommand>(
    command: C,
  ): Promise<Extract<TestAgentAck, { command: C['command'] }>> => {
    const request = SendMessageRequest.fromJSON({ message: message(command) });
    const reply = await log.record(
      `SendMessage (test agent: ${command.command})`,
      binding,
      request,
      () => sdk.sendMessage(request, call),
    );
    const ack = testAgentAckOf(reply);
    if (ack === undefined || ack.command !== command.command || ack.taskId !== command.taskId) {
      throw new Error(
        `test-agent contract: ${command.command} on task ${command.taskId} was not answered with its acknowledgement`,
      );
    }
    if ('error' in ack) {
      throw new Error(
        `test-agent contract: the agent could not ${command.command} task ${command.taskId}: ${ack.error}`,
      );
    }
    return ack as Extract<TestAgentAck, { command: C['command'] }>;
  };

  /** A stream's settle barrier (harness/stream-watch.ts): the control message only, the stream shows its arrival. */
  const barrierOn = (taskId: string) => async (): Promise<string> =>
    (await control({ command: 'settle', taskId })).artifactId;

  const refuseCaller = (caller: Caller): void => {
    if (caller.user !== undefined) {
      notObservable(
        `the case acts as the named user ${caller.user}, whom the kit cannot authenticate as`,
      );
    }
    if (caller.tenant !== undefined) {
      notObservable(
        `the case works in tenant ${caller.tenant} of this project's test stacks, which the agent under test need not serve`,
      );
    }
  };

  const driver: TaskDriver = {
    async create(caller = {}) {
      refuseCaller(caller);
      const task = await send({ command: 'hold' });
      created.add(task.id);
      await untilState(task.id, TaskState.TASK_STATE_WORKING, 'the new task to be WORKING');
      return task.id;
    },
    async turn(taskId) {
      const data = await control({ command: 'turn', taskId });
      // An acknowledgement names the reminders; their content comes from ListTaskReminders.
      const content = new Map<string, SurfacedReminder>();
      if (data.reminders.length > 0) {
        for await (const page of reminderPages(options.reminders, { taskId })) {
          for (const record of page.reminders) {
            if (record.reminder === undefined) continue;
            const { $typeName: _t, $unknown: _u, ttlTurns: _ttl, ...fields } = record.reminder;
            content.set(record.reminder.id, {
              ...fields,
              turnsRemaining: 0,
              firstSurfacing: false,
            });
          }
        }
      }
      const reminders = data.reminders.map((r) => {
        const known = content.get(r.id);
        if (known === undefined) {
          throw new Error(
            `test-agent contract: turn ${data.turn} names reminder ${r.id}, which ListTaskReminders does not list`,
          );
        }
        return { ...known, turnsRemaining: r.turnsRemaining, firstSurfacing: r.firstSurfacing };
      });
      const turn: ReminderTurn = { taskId, turn: data.turn, reminders };
      return turn;
    },
    async hold(taskId, state, endExecution = state === 'INPUT_REQUIRED') {
      if (endExecution !== (state === 'INPUT_REQUIRED')) {
        notObservable(
          `the case holds a task ${state} with its execution ${endExecution ? 'ended' : 'running'}, which the test-agent contract cannot ask for`,
        );
      }
      await control({ command: 'state', taskId, state });
      await untilState(taskId, testAgentTaskState(state), `the task to be ${state}`);
    },
    async resume(taskId) {
      await send({ command: 'hold' }, taskId);
      await untilState(taskId, TaskState.TASK_STATE_WORKING, 'the resumed task to be WORKING');
    },
    async end(taskId, state) {
      await control({ command: 'end', taskId, state });
      await untilState(taskId, testAgentTaskState(state), `the task to be ${state}`);
    },
    async settle(taskId) {
      const { artifactId } = await control({ command: 'settle', taskId });
      await pollTask(
        taskId,
        (task) => task.artifacts.some((a) => a.artifactId === artifactId),
        `the settle barrier (artifact ${artifactId})`,
      );
    },
    async subscribe(taskId, client = sdk) {
      const controller = new AbortController();
      const watch = new StreamWatch(
        client.resubscribeTask(
          { tenant: '', id: taskId },
          { signal: controller.signal, serviceParameters: { ...headers } },
        ),
        controller,
      );
      watches.push(watch);
      log.recordStream('SubscribeToTask', binding, { id: taskId }, () => watch.items);
      await watch.until(() => watch.items.length >= 1, 'the SubscribeToTask snapshot');
      watch.useBarriers(barrierOn(taskId));
      return watch;
    },
    async stream(caller = {}) {
      refuseCaller(caller);
      const controller = new AbortController();
      const request = SendMessageRequest.fromJSON({ message: message({ command: 'hold' }) });
      const watch = new StreamWatch(
        sdk.sendMessageStream(request, {
          signal: controller.signal,
          serviceParameters: { ...headers },
        }),
        controller,
      );
      watches.push(watch);
      log.recordStream('SendStreamingMessage', binding, request, () => watch.items);
      await watch.until(() => watch.items.length >= 1, 'the SendStreamingMessage task');
      const first = watch.items[0]?.payload;
      if (first?.$case !== 'task') throw new Error('the stream did not open with the task');
      created.add(first.value.id);
      watch.useBarriers(barrierOn(first.value.id));
      return { taskId: first.value.id, watch };
    },
    getTask,
    serviceParametersOf() {
      return { ...headers };
    },
    tenantOf() {
      return '';
    },
  };
  return Object.assign(driver, {
    /** Closes the case's streams and cancels the tasks it left running, so the agent under test is left as found. */
    async close() {
      await Promise.all(watches.map((w) => w.close()));
      await Promise.all(
        [...created].map(async (id) => {
          const task = await sdk.getTask({ tenant: '', id }, call).catch(() => undefined);
          const state = task?.status?.state;
          if (state === undefined || isTerminalState(state)) return;
          await sdk
            .cancelTask({ tenant: '', id, metadata: undefined }, call)
            .catch(() => undefined);
        }),
      );
    },
  });
}
