import type { Artifact, Message, Task, TaskStatus } from '@a2a-js/sdk';
import { Role, TaskState } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { AgentEvent } from '@a2a-js/sdk/server';
import { reminderPrepareStep } from '@a2a-reminders/ai-sdk';
import type { ReminderService } from '@a2a-reminders/core';
import { messageText, ReminderError, textMessage, textPart } from '@a2a-reminders/core';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { ModelMessage } from 'ai';
import { generateText, hasToolCall, stepCountIs, ToolChoiceViolationError } from 'ai';
import { codingTools, STEP_TOOL_NAMES } from './coding-tools.js';
import type { Step, TurnPrompt } from './model.js';
import type { TestDelegation } from './test-delegation.js';
import { AGENT_INSTRUCTIONS, turnOfMax, turnPromptOf } from './turn-prompt.js';

export interface CodingAgentOptions {
  /** Core's service; only the turn boundary is needed here. */
  readonly reminders: Pick<ReminderService, 'beginTurn'>;
  /** Any AI SDK language model: the offline scripted one, or an OpenAI-compatible endpoint's. */
  readonly model: LanguageModelV3;
  /**
   * Most turns a task may take (`--turns`). `Infinity`: no limit, the task
   * works until it is cancelled or the model finishes it (`--turns 0`), so a
   * person can take their time with it (issue 11).
   */
  readonly maxTurns: number;
  /** Pause between turns in ms (`--turn-ms`). */
  readonly turnMs: number;
  /**
   * Called with every turn's prompt before the model reads it (`--log-prompts`);
   * the turn waits for it, and `signal` tells it the task was cancelled.
   */
  readonly onPrompt?: (prompt: TurnPrompt, signal: AbortSignal) => void | Promise<void>;
  /** `--delegate-tests`: test steps run as a sub-task on another agent, reminders forwarded. */
  readonly testDelegation?: TestDelegation;
}

/** One task's loop in this process. */
interface Run {
  readonly abort: AbortController;
  readonly done: Promise<void>;
}

/**
 * The worker's agent: each task runs a multi-turn loop of a delegated coding
 * job on the AI SDK's tool loop, one turn per step. At every step the
 * reminder adapter (`@a2a-reminders/ai-sdk`) marks the turn boundary and
 * puts that turn's reminders into that step's prompt only (issue 5, 14). Run it through
 * `reminders.wrapExecutor(...)` so every terminal status is preceded by the
 * reminders' final events (spec: Task end).
 */
export class CodingAgentExecutor implements AgentExecutor {
  readonly #options: CodingAgentOptions;
  readonly #runs = new Map<string, Run>();

  constructor(options: CodingAgentOptions) {
    this.#options = options;
  }

  execute = async (context: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const running = this.#runs.get(context.taskId);
    if (running !== undefined) {
      // A follow-up message on a running task: the SDK starts a second
      // execute() on the same bus. Announce the task (the SDK requires a task
      // or message first) and return only when the loop ends, so the bus is
      // not settled under it.
      bus.publish(AgentEvent.task(snapshotOf(context)));
      await running.done;
      return;
    }
    const abort = new AbortController();
    const done = this.#loop(context, bus, abort.signal);
    this.#runs.set(context.taskId, { abort, done });
    try {
      await done;
    } finally {
      this.#runs.delete(context.taskId);
    }
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const run = this.#runs.get(taskId);
    if (run !== undefined) {
      // A model call in flight is aborted; otherwise the loop sees the abort at
      // its next turn boundary. Either way it publishes CANCELED.
      run.abort.abort();
      return;
    }
    // No loop of this process runs the task: end it here.
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: '',
        status: status(TaskState.TASK_STATE_CANCELED),
        metadata: undefined,
      }),
    );
  };

  /**
   * Stops the task's loop as a cancel would (R71: this replica no longer
   * owns the task; what the loop publishes as it stops is dropped upstream).
   */
  stop(taskId: string): void {
    this.#runs.get(taskId)?.abort.abort();
  }

  /** Cancels every running task at its next turn boundary (worker shutdown). */
  cancelAll(): void {
    for (const run of this.#runs.values()) run.abort.abort();
  }

  /** Resolves once no task loop of this executor is running. */
  async idle(): Promise<void> {
    while (this.#runs.size > 0) {
      await Promise.allSettled([...this.#runs.values()].map((run) => run.done));
    }
  }

  async #loop(context: RequestContext, bus: ExecutionEventBus, signal: AbortSignal): Promise<void> {
    const { taskId, contextId } = context;
    const { maxTurns, model, reminders, turnMs, onPrompt, testDelegation } = this.#options;
    const task = snapshotOf(context);
    bus.publish(AgentEvent.task(task));
    const publishStatus = (state: TaskState, text?: string) =>
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: status(
            state,
            text === undefined ? undefined : textMessage(Role.ROLE_AGENT, context, text),
          ),
          metadata: undefined,
        }),
      );
    publishStatus(TaskState.TASK_STATE_WORKING);

    const steps: Step[] = [];
    let turn = 0;
    let lastStepTurn = 0;
    const onStep = async (step: Step): Promise<string> => {
      // One step per turn: a model that calls several tools at once gets the
      // first carried out and the others refused, so progress and the report
      // read turn by turn.
      if (lastStepTurn === turn) return 'Not done: take one step per turn.';
      lastStepTurn = turn;
      const summary = (step.summary.trim().split('\n')[0] ?? '').slice(0, MAX_SUMMARY_CHARS);
      steps.push({ ...step, summary });
      const label = `turn ${turnOfMax(turn, maxTurns)} ${step.kind}`;
      publishStatus(TaskState.TASK_STATE_WORKING, `${label}: ${summary}`);
      if (step.kind === 'test' && testDelegation !== undefined) {
        return delegateTests(testDelegation, context, bus, summary, signal, (text) =>
          publishStatus(TaskState.TASK_STATE_WORKING, `${label}: ${text}`),
        );
      }
      if (!step.done) await pause(turnMs, signal);
      return 'done';
    };
    const withReminders = reminderPrepareStep(
      async () => {
        const begun = await waitingForStore(() => reminders.beginTurn(context, bus), signal);
        turn = begun.turn;
        return begun;
      },
      {
        // Checked before the boundary, so a cancelled task takes no new turn.
        prepareStep: () => {
          if (signal.aborted) throw new TaskCancelled();
          return undefined;
        },
      },
    );
    // The task's own messages are what the requester sent; status texts are progress.
    const history: ModelMessage[] = task.history
      .filter((m) => m.role === Role.ROLE_USER)
      .map((m) => ({ role: 'user', content: messageText(m) }));
    let result: { readonly text: string; readonly toolCalls: readonly unknown[] } | undefined;
    try {
      result = await generateText({
        model,
        system: AGENT_INSTRUCTIONS,
        messages: history,
        tools: codingTools(onStep),
        // Cancelling the task aborts the model call in flight (and its retries).
        abortSignal: signal,
        stopWhen: [hasToolCall(STEP_TOOL_NAMES.report), stepCountIs(maxTurns)],
        prepareStep: async (step) => {
          const prepared = await withReminders(step);
          const messages = prepared?.messages ?? step.messages;
          await onPrompt?.(
            turnPromptOf({ taskId, turn, maxTurns, loopMessages: step.messages, messages }),
            signal,
          );
          // The last allowed turn reports, whatever the model would rather do.
          return turn >= maxTurns
            ? { ...prepared, toolChoice: { type: 'tool', toolName: STEP_TOOL_NAMES.report } }
            : prepared;
        },
      });
    } catch (error) {
      if (signal.aborted) {
        publishStatus(TaskState.TASK_STATE_CANCELED, `Cancelled after ${turn} turns.`);
        return;
      }
      // A model that will not call the report the last turn requires (some
      // local servers ignore tool_choice): the turn limit ends the task all the
      // same, without that turn's answer.
      if (!(ToolChoiceViolationError.isInstance(error) && turn >= maxTurns)) throw error;
    }

    const last = steps.at(-1);
    if (last === undefined || !last.done) {
      // The model answered in text instead of a tool (its report), or hit the
      // turn limit without reporting: either way its last turn ends the task.
      const text = result?.text.trim() ?? '';
      if (result?.toolCalls.length === 0 && text !== '') {
        await onStep({ kind: 'report', summary: text, done: true });
      } else if (last !== undefined) {
        steps[steps.length - 1] = { ...last, done: true };
      }
    }

    bus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: reportArtifact(steps),
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
    publishStatus(TaskState.TASK_STATE_COMPLETED, `Done in ${turn} turns.`);
  }
}

/**
 * A test step run by the test agent (`--delegate-tests`), its start and end
 * published as the task's progress; what the model is told of the run.
 */
async function delegateTests(
  delegation: TestDelegation,
  context: RequestContext,
  bus: ExecutionEventBus,
  summary: string,
  signal: AbortSignal,
  progress: (text: string) => void,
): Promise<string> {
  let agent = 'the test agent';
  try {
    const run = await delegation.run(context, bus, summary, signal, (subTaskId, name) => {
      agent = name.slice(0, MAX_SUMMARY_CHARS);
      progress(`delegated to ${agent} as task ${subTaskId}`);
    });
    // The other agent's words, quoted in this task's history: its first line, bounded.
    const quoted = (run.finalText.trim().split('\n')[0] ?? '').slice(0, MAX_SUMMARY_CHARS);
    const end = quoted === '' ? '' : `: ${quoted}`;
    const how = run.finalState === '' ? 'stopped answering on' : 'ended';
    const unforwarded = run.forwarded ? '' : ' (it takes no reminders: none were forwarded)';
    const problems = run.problems.length === 0 ? '' : ` (${run.problems.join('; ')})`;
    const text = `${agent} ${how} task ${run.subTaskId} ${taskStateLabel(run.finalState)}${end}${unforwarded}${problems}`;
    progress(text);
    return text;
  } catch (error) {
    // The run is lost, not the task: the model hears why and goes on.
    const text = `${agent} could not run the tests: ${error instanceof Error ? error.message : String(error)}`;
    progress(text);
    return text;
  }
}

/** `COMPLETED` for `TASK_STATE_COMPLETED`. */
function taskStateLabel(name: string): string {
  return name.replace(/^TASK_STATE_/, '');
}

/** The most of a step's summary (its first line) that its progress update quotes. */
const MAX_SUMMARY_CHARS = 200;

/** Thrown at a turn boundary of a cancelled task, to leave the tool loop there. */
class TaskCancelled extends Error {
  constructor() {
    super('task cancelled');
  }
}

/** The task as this execution announces it first. */
function snapshotOf(context: RequestContext): Task {
  if (context.task !== undefined) return context.task;
  return {
    id: context.taskId,
    contextId: context.contextId,
    status: status(TaskState.TASK_STATE_SUBMITTED),
    history: [context.userMessage],
    artifacts: [],
    metadata: undefined,
  };
}

function status(state: TaskState, message?: Message): TaskStatus {
  return { state, message, timestamp: new Date().toISOString() };
}

function reportArtifact(steps: readonly Step[]): Artifact {
  const lines = steps.map((s, i) => `${i + 1}. ${s.kind}: ${s.summary}`);
  return {
    artifactId: 'report',
    name: 'report',
    description: 'The steps the agent took, one per turn.',
    parts: [textPart(lines.join('\n'))],
    metadata: undefined,
    extensions: [],
  };
}

/** Waits `ms`, or less when the task is cancelled, so the next boundary comes at once. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted || ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** How long a turn boundary waits for an unavailable store before the task fails (R69). */
const TURN_STORE_WAIT_MS = 30_000;

/**
 * A turn boundary the store could not take (R69: a restart, a failover, a
 * locked file) is tried again, so a passing outage delays the task's next
 * turn instead of failing the task; a cancel still ends the wait.
 */
async function waitingForStore<T>(step: () => Promise<T>, signal: AbortSignal): Promise<T> {
  const deadline = Date.now() + TURN_STORE_WAIT_MS;
  for (let pauseMs = 200; ; pauseMs = Math.min(pauseMs * 2, 2_000)) {
    try {
      return await step();
    } catch (error) {
      const unavailable = error instanceof ReminderError && error.code === 'UNAVAILABLE';
      if (!unavailable || signal.aborted || Date.now() + pauseMs > deadline) throw error;
      await pause(pauseMs, signal);
      if (signal.aborted) throw new TaskCancelled();
    }
  }
}
