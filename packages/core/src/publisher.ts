import type { TaskStatus } from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import type { AgentExecutionEvent, ExecutionEventBus } from '@a2a-js/sdk/server';
import { AgentEvent } from '@a2a-js/sdk/server';
import type { TaskReminderEvent } from '@a2a-reminders/proto';
import { batchMetadata, eventBatch } from './events.js';
import { isTerminalState } from './task-states.js';

/** The serial queue every executor-wrapper bus over one SDK bus publishes through (R28). */
export interface PublishLane {
  chain: Promise<void>;
  queued: number;
}

/** Reminder events held while the task is INPUT_REQUIRED (R30). */
interface HeldEvents {
  readonly taskId: string;
  readonly events: TaskReminderEvent[];
}

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
  readonly lane: PublishLane;
  held: HeldEvents | undefined;
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
        lane: { chain: Promise.resolve(), queued: 0 },
        held: undefined,
      };
      real.on('event', (event) => {
        observe(s, event);
        // R30: the task left INPUT_REQUIRED for a running state; deliver what
        // was held, after this event has reached every listener.
        if (s.held !== undefined && resumes(event)) queueMicrotask(() => this.flushHeld(real, s));
      });
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
      // R30: the SDK ends every stream (and the queue CancelTask reads) at an
      // INPUT_REQUIRED status update, so a copy of that status would close
      // them. Hold the events for the task's next status update instead.
      if (status.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
        if (state.held === undefined) state.held = { taskId, events: [] };
        state.held.events.push(...events);
        return undefined;
      }
      return AgentEvent.statusUpdate({
        taskId,
        contextId: state.contextId ?? fallback.contextId,
        status: { state: status.state, message: undefined, timestamp: status.timestamp },
        metadata,
      });
    });
  }

  /**
   * R30: a terminal status update about to be forwarded carries the events
   * held while the task was INPUT_REQUIRED (task-end fates included) in its
   * own metadata, so subscribers see them before their stream closes.
   */
  attachHeld(bus: ExecutionEventBus, event: AgentExecutionEvent): AgentExecutionEvent {
    const state = this.stateOf(bus);
    const held = state.held;
    if (held === undefined || event.kind !== 'statusUpdate') return event;
    state.held = undefined;
    return AgentEvent.statusUpdate({
      ...event.data,
      metadata: { ...event.data.metadata, ...batchMetadata(eventBatch(held.taskId, held.events)) },
    });
  }

  private flushHeld(real: ExecutionEventBus, state: BusState): void {
    const held = state.held;
    if (held === undefined) return;
    state.held = undefined;
    this.publishBatch(real, held.taskId, { contextId: '', status: undefined }, held.events);
  }
}

/** A task or status event that puts the task back in a running (non-interrupted, non-terminal) state. */
function resumes(event: AgentExecutionEvent): boolean {
  const state =
    event.kind === 'task' || event.kind === 'statusUpdate' ? event.data.status?.state : undefined;
  return (
    state !== undefined && state !== TaskState.TASK_STATE_INPUT_REQUIRED && !isTerminalState(state)
  );
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
