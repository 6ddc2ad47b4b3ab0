import type { Task, TaskStatus } from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import type {
  AgentExecutionEvent,
  ExecutionEventBus,
  ExecutionEventBusManager,
  RequestContext,
  ServerCallContext,
} from '@a2a-js/sdk/server';
import { AgentEvent } from '@a2a-js/sdk/server';
import { endAll } from './lifecycle.js';
import type { StatusFallback } from './publisher.js';
import { executionFallback, taskFallback } from './publisher.js';
import type { ReminderSteps } from './reminder-steps.js';
import type { ReminderStoreKey } from './store.js';
import { isLiveState } from './store.js';
import { isTerminalState, taskStateName } from './task-states.js';

/**
 * Terminal-task handling: a task's reminders end when the task does (R27),
 * before its terminal event reaches the stream (R28), or at the next rpc
 * about a task that ended without them being ended (R29).
 */
export class TaskEnd {
  constructor(
    private readonly steps: ReminderSteps,
    private readonly busManager: ExecutionEventBusManager,
  ) {}

  /** R27: ends every live reminder, then publishes their events (if a bus is given). */
  async endReminders(
    key: ReminderStoreKey,
    finalState: TaskState,
    bus: ExecutionEventBus | undefined,
    fallback: StatusFallback,
  ): Promise<void> {
    const steps = this.steps;
    const outcome = await steps.commit(key, (tx) =>
      endAll(tx, taskStateName(finalState), steps.nowMs(), steps.limits),
    );
    // No bus: nothing may be published on the stream yet (R28).
    await steps.deliver(key, bus, fallback, outcome, bus === undefined);
  }

  /**
   * R29: a terminal task (as an rpc looked it up) whose reminders are still
   * live has them ended now, their events on the task's bus if it has one.
   */
  async endIfTerminal(context: ServerCallContext, task: Task): Promise<void> {
    const state = task.status?.state;
    if (state === undefined || !isTerminalState(state)) return;
    const key = this.steps.keyOf(context, task.id);
    if (!(await this.unended(key))) return;
    await this.endReminders(
      key,
      state,
      this.busManager.getByTaskId(task.id, context),
      taskFallback(task),
    );
  }

  /**
   * The SDK accepts a task event only as an execution's first event, and a
   * status update only after one. When an execution of an existing task
   * opens with a terminal task event while reminders are live, it is
   * forwarded as the task in WORKING, then the reminders' fates, then the
   * terminal status as a status update (R28), so subscribers still see every
   * fate before the stream closes.
   */
  async splitTerminalTask(
    key: ReminderStoreKey,
    scope: RequestContext,
    real: ExecutionEventBus,
    state: TaskState,
    task: Task,
    forward: (event: AgentExecutionEvent) => void,
  ): Promise<AgentExecutionEvent> {
    const snapshot = await this.steps.store.read(key);
    const live =
      snapshot !== undefined &&
      snapshot.ended === undefined &&
      snapshot.reminders.some((r) => isLiveState(r.state));
    // R57: waiting displacement events also need a stream still open to reach.
    if (!live && !this.steps.buses.hasDelayed(real)) {
      await this.endReminders(key, state, undefined, executionFallback(scope));
      return AgentEvent.task(task);
    }
    const working: TaskStatus = {
      state: TaskState.TASK_STATE_WORKING,
      message: undefined,
      timestamp: task.status?.timestamp,
    };
    forward(AgentEvent.task({ ...task, status: working }));
    await this.endReminders(key, state, real, {
      contextId: task.contextId,
      status: working,
      history: undefined,
    });
    return AgentEvent.statusUpdate({
      taskId: task.id,
      contextId: task.contextId,
      status: task.status,
      metadata: undefined,
    });
  }

  /**
   * R29 needs a write only for a task whose reminders were never ended. A
   * plain read first keeps List and Cancel of ended tasks read-only, and a
   * swept task's records from coming back with a new retention period.
   */
  private async unended(key: ReminderStoreKey): Promise<boolean> {
    const first = await this.steps.store.page(key, { afterSeq: 0, limit: 1, liveOnly: false });
    return first !== undefined && first.ended === undefined;
  }
}
