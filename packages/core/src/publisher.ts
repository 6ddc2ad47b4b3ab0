import type { TaskStatus } from '@a2a-js/sdk';
import type { AgentExecutionEvent, ExecutionEventBus } from '@a2a-js/sdk/server';
import { AgentEvent } from '@a2a-js/sdk/server';
import type { TaskReminderEvent } from '@a2a-reminders/proto';
import { batchMetadata, eventBatch } from './events.js';

/** What the service knows about one real (SDK) event bus. */
export interface BusState {
  /** The latest task status seen on the bus (R31). */
  status: TaskStatus | undefined;
  contextId: string | undefined;
  /**
   * Executions on this bus that have not published their first task or
   * message event yet. While non-zero, reminder status updates wait: the SDK
   * rejects a stream whose first event is a status update.
   */
  awaitingFirstEvent: number;
  /** Built when published, so a deferred status copy is current then (R31). */
  readonly deferred: Array<() => AgentExecutionEvent | undefined>;
}

/** A bus that forwards to an SDK bus (the executor wrapper's bus). */
export interface ForwardingBus extends ExecutionEventBus {
  readonly inner: ExecutionEventBus;
}

export function isForwardingBus(bus: ExecutionEventBus): bus is ForwardingBus {
  return 'inner' in bus && typeof (bus as { inner?: unknown }).inner === 'object';
}

/** Tracks buses the service has seen, so a status copy never reverts a newer state (R31). */
export class BusRegistry {
  private readonly states = new WeakMap<ExecutionEventBus, BusState>();

  /** The SDK bus under any wrapper. */
  real(bus: ExecutionEventBus): ExecutionEventBus {
    let b = bus;
    while (isForwardingBus(b)) b = b.inner;
    return b;
  }

  /** The state of the bus, listening to it from now on. */
  stateOf(bus: ExecutionEventBus): BusState {
    const real = this.real(bus);
    let state = this.states.get(real);
    if (state === undefined) {
      const s: BusState = {
        status: undefined,
        contextId: undefined,
        awaitingFirstEvent: 0,
        deferred: [],
      };
      real.on('event', (event) => observe(s, event));
      this.states.set(real, s);
      state = s;
    }
    return state;
  }

  /** Publishes now, or after the pending first event of an execution. */
  publish(bus: ExecutionEventBus, build: () => AgentExecutionEvent | undefined): void {
    const real = this.real(bus);
    const state = this.stateOf(real);
    if (state.awaitingFirstEvent > 0) {
      state.deferred.push(build);
      return;
    }
    const event = build();
    if (event !== undefined) real.publish(event);
  }

  /** One execution published its first event (or ended without one). */
  firstEventDone(bus: ExecutionEventBus): void {
    const real = this.real(bus);
    const state = this.stateOf(real);
    state.awaitingFirstEvent = Math.max(0, state.awaitingFirstEvent - 1);
    if (state.awaitingFirstEvent === 0) {
      const events = state.deferred.splice(0);
      for (const build of events) {
        const event = build();
        if (event !== undefined) real.publish(event);
      }
    }
  }

  /**
   * R30: one status update per batch, `status` a copy of the current status
   * without its message (so nothing enters history), the batch under the URI.
   * Skipped when no status is known (events stay listable, R32).
   */
  publishBatch(
    bus: ExecutionEventBus,
    taskId: string,
    fallback: { contextId: string; status: TaskStatus | undefined },
    events: readonly TaskReminderEvent[],
  ): void {
    if (events.length === 0) return;
    const state = this.stateOf(bus);
    const metadata = batchMetadata(eventBatch(taskId, [...events]));
    this.publish(bus, () => {
      const status = state.status ?? fallback.status;
      if (status === undefined) return undefined;
      return AgentEvent.statusUpdate({
        taskId,
        contextId: state.contextId ?? fallback.contextId,
        status: { state: status.state, message: undefined, timestamp: status.timestamp },
        metadata,
      });
    });
  }
}

function observe(state: BusState, event: AgentExecutionEvent): void {
  if (event.kind === 'task') {
    state.contextId = event.data.contextId;
    if (event.data.status !== undefined) state.status = event.data.status;
  } else if (event.kind === 'statusUpdate') {
    state.contextId = event.data.contextId;
    if (event.data.status !== undefined) state.status = event.data.status;
  }
}
