import { TaskState } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { EndingBus } from './ending-bus.js';
import { executionFallback } from './publisher.js';
import type { ReminderSteps } from './reminder-steps.js';
import { storeKeyString } from './store.js';
import type { TaskEnd } from './task-end.js';

/**
 * Wraps executors so that every terminal status they publish (from
 * `execute`, from `cancelTask`, and the FAILED one when `execute` throws)
 * is preceded by the end of the task's reminders (R27, R28).
 */
export class ExecutorWrapper {
  /** The execution scope behind each SDK bus, so cancelTask(taskId, bus) can end reminders (R28). */
  private readonly scopes = new WeakMap<ExecutionEventBus, RequestContext>();

  constructor(
    private readonly steps: ReminderSteps,
    private readonly taskEnd: TaskEnd,
  ) {}

  wrap(executor: AgentExecutor): AgentExecutor {
    const buses = this.steps.buses;
    return {
      execute: async (requestContext, eventBus) => {
        const real = buses.real(eventBus);
        this.scopes.set(real, requestContext);
        const state = buses.stateOf(real);
        state.awaitingFirstEvent += 1;
        // R50: what the stored history holds, so reminder updates can repeat its messages.
        buses.knowHistory(real, requestContext.task?.history);
        const bus = this.endingBus(real, requestContext, false);
        const key = this.steps.keyOf(requestContext.context, requestContext.taskId);
        // The caller that started the execution owns the task (R7): its rpcs
        // find the task on the bus even before the A2A server has stored it.
        if (this.steps.replicas === undefined) {
          state.knownCallers.add(storeKeyString(key));
        }
        // R65: injects take the task off this bus only while an execution runs.
        state.executing += 1;
        try {
          // R52: this replica runs the task, so it delivers the task's events
          // committed anywhere, for as long as the bus lives. Without replicas
          // nothing is awaited here: the executor starts in the same tick.
          if (this.steps.replicas !== undefined) {
            await this.steps.replicas.follow(key, real, executionFallback(requestContext));
          }
          await executor.execute(requestContext, bus);
          await bus.drain();
          // R57: the A2A server may close the bus once execute returns.
          buses.flushDelayed(real);
        } catch (error) {
          await bus.drain();
          // R57: before the A2A server's failure event (held until the first event, if none yet).
          buses.flushDelayed(real);
          // R28: a failed execution ends its reminders as FAILED. Before the
          // execution's first event nothing may be published on its stream.
          await this.taskEnd
            .endReminders(
              key,
              TaskState.TASK_STATE_FAILED,
              bus.hasStarted ? real : undefined,
              executionFallback(requestContext),
            )
            .catch((e: unknown) => console.error('task reminders: ending reminders failed', e));
          if (bus.hasStarted) buses.releaseBeforeFailure(real);
          throw error;
        } finally {
          state.executing -= 1;
          bus.settleFirstEvent();
        }
      },
      cancelTask: async (taskId, eventBus) => {
        const real = buses.real(eventBus);
        const scope = this.scopes.get(real);
        if (scope === undefined || scope.taskId !== taskId) {
          await executor.cancelTask(taskId, eventBus);
          return;
        }
        const bus = this.endingBus(real, scope, true);
        await executor.cancelTask(taskId, bus);
        await bus.drain();
      },
    };
  }

  /** R28: the bus an executor publishes on, ending reminders before a terminal event. */
  private endingBus(real: ExecutionEventBus, scope: RequestContext, started: boolean): EndingBus {
    const key = this.steps.keyOf(scope.context, scope.taskId);
    const fallback = executionFallback(scope);
    const buses = this.steps.buses;
    return new EndingBus(
      real,
      {
        beforeTerminal: async (state, event, first, forward) => {
          if (first && event.kind === 'task' && scope.task !== undefined) {
            return this.taskEnd.splitTerminalTask(key, scope, real, state, event.data, forward);
          }
          await this.taskEnd.endReminders(key, state, first ? undefined : real, fallback);
          // R30: fates held while the task was INPUT_REQUIRED ride on the terminal update.
          return buses.attachHeld(real, event);
        },
        onFirstEvent: () => buses.firstEventDone(real),
        beforeEvent: () => buses.flushDelayed(real),
      },
      buses.stateOf(real).lane,
      started,
    );
  }
}
