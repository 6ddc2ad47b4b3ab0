import type { Artifact, Message, Task, TaskStatus } from '@a2a-js/sdk';
import { Role, TaskState } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { AgentEvent } from '@a2a-js/sdk/server';
import type { ReminderService } from '@a2a-reminders/core';
import { textMessage, textPart } from '@a2a-reminders/core';
import type { Model, Step, TurnPrompt } from './model.js';
import { buildTurnPrompt, turnOfMax } from './turn-prompt.js';

export interface CodingAgentOptions {
  /** Core's service; only the turn boundary is needed here. */
  readonly reminders: Pick<ReminderService, 'beginTurn'>;
  readonly model: Model;
  /**
   * Most turns a task may take (`--turns`). `Infinity`: no limit, the task
   * works until it is cancelled or the model finishes it (`--turns 0`), so a
   * person can take their time with it (issue 11).
   */
  readonly maxTurns: number;
  /** Pause between turns in ms (`--turn-ms`). */
  readonly turnMs: number;
  /** Called with every turn's prompt (`--log-prompts`). */
  readonly onPrompt?: (prompt: TurnPrompt) => void;
}

/** One task's loop in this process. */
interface Run {
  readonly abort: AbortController;
  readonly done: Promise<void>;
}

/**
 * The worker's agent: each task runs a multi-turn loop of a delegated coding
 * job. At every turn boundary it takes that turn's reminders from core and
 * renders them into the turn's prompt only (issue 5). Run it through
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
      // The loop sees the abort at its next turn boundary and publishes CANCELED there.
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
    const { maxTurns, model, reminders, turnMs, onPrompt } = this.#options;
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
    for (;;) {
      if (signal.aborted) {
        publishStatus(TaskState.TASK_STATE_CANCELED, `Cancelled after ${steps.length} turns.`);
        return;
      }
      const { turn, reminders: surfaced } = await reminders.beginTurn(context, bus);
      const prompt = buildTurnPrompt({
        taskId,
        turn,
        maxTurns,
        history: task.history,
        steps,
        reminders: surfaced,
      });
      onPrompt?.(prompt);
      let step = await model.nextStep(prompt, signal);
      // A model that never finishes still stops at the turn limit.
      if (turn >= maxTurns && !step.done) step = { ...step, done: true };
      steps.push(step);
      publishStatus(
        TaskState.TASK_STATE_WORKING,
        `turn ${turnOfMax(turn, maxTurns)} ${step.kind}: ${step.summary}`,
      );
      if (step.done) break;
      await pause(turnMs, signal);
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
    publishStatus(TaskState.TASK_STATE_COMPLETED, `Done in ${steps.length} turns.`);
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
