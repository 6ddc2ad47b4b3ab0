import type { Message, TaskStatus } from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import type {
  AgentExecutionEvent,
  AgentExecutor,
  ExecutionEventBus,
  OwnerResolver,
  RequestContext,
  ServerCallContext,
} from '@a2a-js/sdk/server';
import { AgentEvent, resolveUserScope } from '@a2a-js/sdk/server';
import type { ReminderService } from './service.js';
import { isTerminalState, taskStateName } from './task-states.js';
import type { TestAgentAck, TestAgentControlCommand } from './test-agent-contract.js';
import {
  readTestAgentCommand,
  testAgentReply,
  testAgentSettleArtifact,
  testAgentTaskState,
} from './test-agent-contract.js';

export interface TestAgentExecutorOptions {
  /** The service whose `wrapExecutor` runs this executor: `turn` is its turn boundary. */
  readonly reminders: Pick<ReminderService, 'beginTurn'>;
  /**
   * Who owns a task, as the task store scopes it (the SDK's `resolveUserScope`
   * by default): a control message acts only on a task of its own caller
   * (same owner, same tenant); any other is an unknown task to it.
   */
  readonly ownerResolver?: OwnerResolver;
}

/** A promise and the functions that settle it. */
interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

/** A control command handed to the held task's running execution, and its acknowledgement. */
interface Queued {
  readonly command: TestAgentControlCommand;
  /** The control message's id: the `settle` barrier artifact is named after it. */
  readonly messageId: string;
  readonly done: Deferred<TestAgentAck>;
}

/** One running execution of a held task: the `execute` a `hold` started. */
interface Execution {
  readonly requestContext: RequestContext;
  /** The bus that execute was given (the service's wrapper bus): the execution publishes here only. */
  readonly bus: ExecutionEventBus;
  readonly queue: Queued[];
  /** Wakes the execution waiting for a command. */
  wake: (() => void) | undefined;
  /** A command that ends the execution was taken, or it ended: later commands find it not running. */
  closing: boolean;
  /** The execution has ended; its execute returns. */
  over: boolean;
  readonly ended: Deferred<void>;
  /** The execute of this execution, until it returned. */
  call: Promise<void> | undefined;
}

/** What the executor knows of a task it runs or that waits in INPUT_REQUIRED. */
interface TaskRecord {
  readonly contextId: string;
  /** Tenant and owner of the task: control messages of other callers do not find it. */
  readonly scope: string;
  /** The state last published for the task. */
  state: TaskState;
  execution: Execution | undefined;
}

/**
 * The agent side of the conformance kit's test-agent contract
 * (docs/conformance-kit.md, "The test-agent contract"): `hold` tasks stay
 * running and act only on control messages. Run it through the same
 * service's `wrapExecutor`, so terminal states end the task's reminders
 * first (spec: Task end).
 *
 * A control message is a new message of its own, never a follow-up on the
 * held task: a follow-up would be a second `execute` on the task's bus, whose
 * first event (a task event) breaks the task's open streams on the SDK. So
 * the control message's `execute` hands its command to the held task's
 * running execution, which carries commands out in the order received, on
 * its own request context and bus; then it answers with a message of its own
 * (no task is created for it) holding the acknowledgement. A command that
 * cannot be carried out is answered with an error acknowledgement: a control
 * message never fails a task.
 */
export class TestAgentExecutor implements AgentExecutor {
  readonly #reminders: Pick<ReminderService, 'beginTurn'>;
  readonly #ownerResolver: OwnerResolver;
  readonly #tasks = new Map<string, TaskRecord>();
  /** Control messages' executes until they returned, for {@link idle}. */
  readonly #controls = new Set<Promise<void>>();

  constructor(options: TestAgentExecutorOptions) {
    this.#reminders = options.reminders;
    this.#ownerResolver = options.ownerResolver ?? resolveUserScope;
  }

  execute = async (requestContext: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const message = requestContext.userMessage;
    const read = readTestAgentCommand(message);
    if (requestContext.task !== undefined) {
      // A follow-up on a task (the message named it): only `hold` resumes
      // one. Anything else fails the task, as the SDK fails a task whose
      // execution throws: control commands are new messages, never follow-ups.
      if (read.ok && read.command.command === 'hold') {
        await this.#resume(requestContext, bus);
        return;
      }
      throw new Error(
        `message ${message.messageId} is a follow-up on task ${requestContext.taskId}: only a hold ` +
          'on an INPUT_REQUIRED task may be; control commands are new messages without taskId ' +
          '(docs/conformance-kit.md)',
      );
    }
    if (read.ok && read.command.command === 'hold') {
      await this.#hold(requestContext, bus);
      return;
    }
    const call = (async () => {
      const ack: TestAgentAck = read.ok
        ? // Not `hold`: that returned above.
          await this.#control(requestContext, read.command as TestAgentControlCommand)
        : { command: read.command, taskId: read.taskId, error: read.error };
      // A message of its own: the SDK stores no task for it, and the held task is not touched.
      bus.publish(AgentEvent.message(testAgentReply(ack)));
    })();
    this.#controls.add(call);
    try {
      await call;
    } finally {
      this.#controls.delete(call);
    }
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const record = this.#tasks.get(taskId);
    publishState(bus, taskId, record?.contextId ?? '', TaskState.TASK_STATE_CANCELED);
    if (record === undefined) return;
    record.state = TaskState.TASK_STATE_CANCELED;
    // The wrapper's buses share one lane per task, so the execution's return
    // waits for this CANCELED (held while reminders end) to be published.
    if (record.execution !== undefined) end(record.execution);
    else this.#tasks.delete(taskId);
  };

  /** Whether the task runs here or waits here in INPUT_REQUIRED (a worker routes by it). */
  hasTask(taskId: string): boolean {
    return this.#tasks.has(taskId);
  }

  /** Ends every running execution CANCELED (a worker shutting down). */
  cancelAll(): void {
    for (const [taskId, record] of this.#tasks) {
      const execution = record.execution;
      if (execution === undefined || execution.over) continue;
      publishState(execution.bus, taskId, record.contextId, TaskState.TASK_STATE_CANCELED);
      record.state = TaskState.TASK_STATE_CANCELED;
      end(execution);
    }
  }

  /** Resolves once every execution, and every control message's execute, has returned. */
  async idle(): Promise<void> {
    for (;;) {
      const running = [...this.#tasks.values()].flatMap((r) =>
        r.execution === undefined ? [] : [settled(r.execution)],
      );
      const calls = [...running, ...this.#controls];
      if (calls.length === 0) return;
      await Promise.allSettled(calls);
    }
  }

  /** `hold` as a new message: creates the task in WORKING, its execution running. */
  async #hold(requestContext: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const execution = this.#start(requestContext, bus);
    bus.publish(workingTask(requestContext, [requestContext.userMessage]));
    await this.#run(execution);
  }

  /** `hold` as a follow-up on an INPUT_REQUIRED task: a new execution of it, back in WORKING. */
  async #resume(requestContext: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId } = requestContext;
    const previous = this.#tasks.get(taskId)?.execution;
    if (previous !== undefined) {
      if (!previous.closing) throw new Error(`hold: task ${taskId} is running already`);
      // An execution ending on an earlier command ends first, so the SDK
      // settles its bus on that state before this one starts.
      await settled(previous);
    }
    const state = this.#tasks.get(taskId)?.state ?? requestContext.task?.status?.state;
    if (state !== TaskState.TASK_STATE_INPUT_REQUIRED) {
      throw new Error(`hold: task ${taskId} is ${taskStateName(state)}, not INPUT_REQUIRED`);
    }
    const execution = this.#start(requestContext, bus);
    // The task keeps its stored history and artifacts (empty lists keep them).
    bus.publish(workingTask(requestContext, []));
    await this.#run(execution);
  }

  #start(requestContext: RequestContext, bus: ExecutionEventBus): Execution {
    const execution: Execution = {
      requestContext,
      bus,
      queue: [],
      wake: undefined,
      closing: false,
      over: false,
      ended: deferred(),
      call: undefined,
    };
    this.#tasks.set(requestContext.taskId, {
      contextId: requestContext.contextId,
      scope: this.#scopeOf(requestContext.context),
      state: TaskState.TASK_STATE_WORKING,
      execution,
    });
    return execution;
  }

  /** A control command: carried out by the held task's running execution; its acknowledgement. */
  async #control(
    requestContext: RequestContext,
    command: TestAgentControlCommand,
  ): Promise<TestAgentAck> {
    const fail = (error: string): TestAgentAck => ({
      command: command.command,
      taskId: command.taskId,
      error,
    });
    const record = this.#tasks.get(command.taskId);
    if (record === undefined || record.scope !== this.#scopeOf(requestContext.context)) {
      return fail(`${command.command}: task ${command.taskId} is not held by this agent`);
    }
    const execution = record.execution;
    if (execution === undefined || execution.closing) {
      return fail(
        `${command.command}: task ${command.taskId} has no running execution (it is ` +
          `${taskStateName(record.state)}; a hold follow-up resumes an INPUT_REQUIRED task)`,
      );
    }
    if (command.command === 'end' || (command.command === 'state' && ends(command.state))) {
      execution.closing = true;
    }
    const item: Queued = {
      command,
      messageId: requestContext.userMessage.messageId,
      done: deferred(),
    };
    execution.queue.push(item);
    execution.wake?.();
    try {
      return await item.done.promise;
    } catch (error) {
      return fail(error instanceof Error ? error.message : String(error));
    }
  }

  /** The running execution: carries out queued commands in order until it ends. */
  async #run(execution: Execution): Promise<void> {
    const call = this.#loop(execution);
    execution.call = call;
    await call;
  }

  async #loop(execution: Execution): Promise<void> {
    const { taskId } = execution.requestContext;
    // A terminal state published by anyone (a cancel, the SDK's FAILED for a
    // failed follow-up) ends the execution.
    const watch = (event: AgentExecutionEvent) => {
      const state = terminalStateOf(event, taskId);
      if (state === undefined) return;
      const record = this.#tasks.get(taskId);
      if (record?.execution === execution) record.state = state;
      end(execution);
    };
    execution.bus.on('event', watch);
    try {
      for (;;) {
        if (execution.over) return;
        const item = execution.queue.shift();
        if (item === undefined) {
          await new Promise<void>((resolve) => {
            execution.wake = resolve;
          });
          execution.wake = undefined;
          continue;
        }
        try {
          item.done.resolve(await this.#carryOut(execution, item));
        } catch (error) {
          item.done.reject(error);
        }
      }
    } finally {
      execution.bus.off('event', watch);
      end(execution);
      const record = this.#tasks.get(taskId);
      if (record?.execution === execution) {
        record.execution = undefined;
        if (isTerminalState(record.state)) this.#tasks.delete(taskId);
      }
    }
  }

  /** One command, on the execution's own request context and bus. */
  async #carryOut(execution: Execution, item: Queued): Promise<TestAgentAck> {
    const { taskId, contextId } = execution.requestContext;
    const command = item.command;
    switch (command.command) {
      case 'turn': {
        const turn = await this.#reminders.beginTurn(execution.requestContext, execution.bus);
        if (execution.over) throw new Error(`turn: task ${taskId} ended during the turn boundary`);
        return {
          command: 'turn',
          taskId,
          turn: turn.turn,
          // Without their text: a reminder's body never leaves the model's prompt.
          reminders: turn.reminders.map((r) => ({
            id: r.id,
            turnsRemaining: r.turnsRemaining,
            firstSurfacing: r.firstSurfacing,
          })),
        };
      }
      case 'settle': {
        // The barrier: published after everything before it, so once stored, all of that is.
        const artifact = testAgentSettleArtifact(item.messageId);
        execution.bus.publish(
          AgentEvent.artifactUpdate({
            taskId,
            contextId,
            artifact,
            append: false,
            lastChunk: true,
            metadata: undefined,
          }),
        );
        return { command: 'settle', taskId, artifactId: artifact.artifactId };
      }
      case 'state':
      case 'end': {
        const state = testAgentTaskState(command.state);
        const record = this.#tasks.get(taskId);
        if (record?.execution === execution) record.state = state;
        publishState(execution.bus, taskId, contextId, state);
        if (command.command === 'end' || ends(command.state)) end(execution);
        return command.command === 'end'
          ? { command: 'end', taskId, state: command.state }
          : { command: 'state', taskId, state: command.state };
      }
    }
  }

  #scopeOf(context: ServerCallContext): string {
    return JSON.stringify([context.tenant ?? '', this.#ownerResolver(context)]);
  }
}

/** A `state` that ends the execution: an agent waiting for input (docs/conformance-kit.md). */
function ends(state: string): boolean {
  return state === 'INPUT_REQUIRED';
}

/** Ends the execution: its execute returns; commands still queued are answered with an error. */
function end(execution: Execution): void {
  if (execution.over) return;
  execution.over = true;
  execution.closing = true;
  for (const item of execution.queue.splice(0)) {
    item.done.reject(new Error(`${item.command.command}: the task's execution ended first`));
  }
  execution.ended.resolve();
  execution.wake?.();
}

/** Resolves once the execution has ended and its execute returned. */
async function settled(execution: Execution): Promise<void> {
  await execution.ended.promise;
  await execution.call?.catch(() => {});
}

/** A status update with no message and no metadata: what every state change here is. */
function publishState(
  bus: ExecutionEventBus,
  taskId: string,
  contextId: string,
  state: TaskState,
): void {
  bus.publish(
    AgentEvent.statusUpdate({ taskId, contextId, status: status(state), metadata: undefined }),
  );
}

/** The task event that opens an execution: the task WORKING, with `history` (artifacts kept). */
function workingTask(requestContext: RequestContext, history: Message[]): AgentExecutionEvent {
  return AgentEvent.task({
    id: requestContext.taskId,
    contextId: requestContext.contextId,
    status: status(TaskState.TASK_STATE_WORKING),
    history,
    artifacts: [],
    metadata: undefined,
  });
}

function status(state: TaskState): TaskStatus {
  return { state, message: undefined, timestamp: new Date().toISOString() };
}

function terminalStateOf(event: AgentExecutionEvent, taskId: string): TaskState | undefined {
  let state: TaskState | undefined;
  if (event.kind === 'task' && event.data.id === taskId) state = event.data.status?.state;
  else if (event.kind === 'statusUpdate' && event.data.taskId === taskId) {
    state = event.data.status?.state;
  }
  return isTerminalState(state) ? state : undefined;
}

function deferred<T = void>(): Deferred<T> {
  let resolve: (value: T) => void = () => {};
  let reject: (error: unknown) => void = () => {};
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A command nobody awaits any more must not be an unhandled rejection.
  promise.catch(() => {});
  return { promise, resolve, reject };
}
