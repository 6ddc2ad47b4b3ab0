import type { StreamResponse, TaskStatus } from '@a2a-js/sdk';
import type { ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import type { A2AConnection } from '@a2a-reminders/client';
import { connectToA2AAgent, delegationRequest, withReminderClient } from '@a2a-reminders/client';
import type { ForwardingClient, ReminderForwarding, ReminderService } from '@a2a-reminders/core';
import { isTerminalState, messageText, taskStateName } from '@a2a-reminders/core';
import type { TestAgent } from './cli-args.js';

/** What the worker's test step learns from the agent it delegated the run to. */
export interface DelegatedRun {
  /** The sub-task's id in the test agent. */
  readonly subTaskId: string;
  /** Its terminal state's ProtoJSON name, e.g. `TASK_STATE_COMPLETED`; empty if its stream ended first. */
  readonly finalState: string;
  /** The text of its last status message, if any. */
  readonly finalText: string;
  /** False when the test agent does not serve reminders: the run went without them. */
  readonly forwarded: boolean;
  /** What went wrong with forwarding while the tests ran fine (the copies' record may lag). */
  readonly problems: readonly string[];
}

/**
 * How long a cancelled task waits for the sub-task's stream to end after
 * cancelling it, so the copies' last fates arrive (R64), before it stops
 * reading: a test agent that ignores the cancel cannot hold the task.
 */
export const CANCEL_GRACE_MS = 10_000;

/**
 * `--delegate-tests` (spec §15): the worker runs its test step as a sub-task
 * on another A2A agent and forwards its task's reminders into it, so a CI
 * signal injected while the tests run reaches the agent running them, with
 * provenance (R58, R62); the copies' fates come back onto the task (R63). An
 * agent that does not serve reminders runs the tests all the same, with no
 * reminders forwarded: it would not know what to do with them.
 */
export class TestDelegation {
  constructor(
    private readonly agent: TestAgent,
    private readonly reminders: Pick<ReminderService, 'forwardReminders'>,
    private readonly cancelGraceMs = CANCEL_GRACE_MS,
  ) {}

  /**
   * Delegates one test run and waits for its end. `started` is told the
   * sub-task's id once it exists, before any reminder is forwarded. A
   * cancelled task cancels the sub-task.
   */
  async run(
    context: RequestContext,
    bus: ExecutionEventBus,
    what: string,
    signal: AbortSignal,
    started: (subTaskId: string, agentName: string) => void,
  ): Promise<DelegatedRun> {
    const a2a = await connectToA2AAgent(this.agent.url, { binding: this.agent.binding });
    let connection: A2AConnection = a2a;
    let reminderClient: ForwardingClient | undefined;
    if (a2a.servesReminders) {
      const full = withReminderClient(a2a);
      connection = full;
      reminderClient = full.reminders;
    }
    let forwarding: ReminderForwarding | undefined;
    const problems: string[] = [];
    try {
      const run = await this.#follow(connection, what, signal, problems, (subTaskId) => {
        started(subTaskId, connection.card.name);
        if (reminderClient === undefined) return undefined;
        try {
          forwarding = this.reminders.forwardReminders(context, bus, {
            client: reminderClient,
            taskId: subTaskId,
          });
        } catch (error) {
          // A sub-task id no record could hold (R63): the tests run, unforwarded.
          problems.push(`not forwarded: ${messageOf(error)}`);
        }
        return forwarding;
      });
      // The last read of the copies' states (R64). What it fails at costs the
      // report on the copies, never the test run itself.
      await forwarding?.close().catch((error: unknown) => {
        problems.push(`forwarding: ${messageOf(error)}`);
      });
      return { ...run, problems };
    } finally {
      // Closed on every path; after a failed run its failure is the one reported.
      await forwarding?.close().catch(() => {});
      connection.close();
    }
  }

  async #follow(
    connection: A2AConnection,
    what: string,
    signal: AbortSignal,
    problems: string[],
    opened: (subTaskId: string) => ReminderForwarding | undefined,
  ): Promise<Omit<DelegatedRun, 'problems'>> {
    const reading = new AbortController();
    let subTaskId = '';
    let grace: ReturnType<typeof setTimeout> | undefined;
    const onAbort = () => {
      void cancelSubTask(connection, subTaskId, this.cancelGraceMs);
      grace ??= setTimeout(() => reading.abort(signal.reason), this.cancelGraceMs);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort();
    let forwarding: ReminderForwarding | undefined;
    let finalState = '';
    let finalText = '';
    try {
      const stream = connection.client.sendMessageStream(
        delegationRequest(what),
        connection.requestOptions(reading.signal),
      );
      for await (const item of stream) {
        const task = taskOf(item);
        if (subTaskId === '' && task !== undefined) {
          subTaskId = task.id;
          forwarding = opened(subTaskId);
          if (signal.aborted) onAbort();
        }
        await forwarding?.observe(item).catch((error: unknown) => {
          // A report the task's store could not take: close reads the copies again.
          problems.push(`forwarding: ${messageOf(error)}`);
        });
        const status = statusOf(item);
        if (status !== undefined && isTerminalState(status.state)) {
          finalState = taskStateName(status.state);
          finalText = messageText(status.message);
        }
      }
    } catch (error) {
      // Nobody follows the sub-task any more: it is not left running.
      if (finalState === '') await cancelSubTask(connection, subTaskId, this.cancelGraceMs);
      throw error;
    } finally {
      signal.removeEventListener('abort', onAbort);
      clearTimeout(grace);
    }
    if (subTaskId === '') throw new Error(`${connection.card.name} answered without a task`);
    return { subTaskId, finalState, finalText, forwarded: forwarding !== undefined };
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function cancelSubTask(
  connection: A2AConnection,
  taskId: string,
  timeoutMs: number,
): Promise<void> {
  if (taskId === '') return;
  try {
    await connection.client.cancelTask(
      { tenant: '', id: taskId, metadata: undefined },
      connection.requestOptions(AbortSignal.timeout(timeoutMs)),
    );
  } catch {
    // Already ended; its stream says how.
  }
}

/** The task a stream's first item announces. */
function taskOf(item: StreamResponse): { readonly id: string } | undefined {
  return item.payload?.$case === 'task' ? { id: item.payload.value.id } : undefined;
}

/** The status a stream item carries: a task's, or a status update's. */
function statusOf(item: StreamResponse): TaskStatus | undefined {
  const payload = item.payload;
  if (payload?.$case === 'task' || payload?.$case === 'statusUpdate') return payload.value.status;
  return undefined;
}
