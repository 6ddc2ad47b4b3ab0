import type { Message, Task, TaskStatus } from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import type { AgentExecutionEvent, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { AgentEvent } from '@a2a-js/sdk/server';
import type { TaskReminderEvent } from '@a2a-reminders/proto';
import { batchMetadata, eventBatch } from './events.js';
import { isTerminalState } from './task-states.js';
import type { WaitingEvent } from './waiting-displacement.js';
import { eventOfWaiting, waitingEvent } from './waiting-displacement.js';

/** The serial queue every EndingBus over one SDK bus publishes through (R28). */
export interface PublishLane {
  chain: Promise<void>;
  queued: number;
}

/** Reminder events held while the task's status cannot be repeated (R30, R50). */
interface HeldEvents {
  readonly taskId: string;
  readonly events: TaskReminderEvent[];
}

/** Displacement events waiting to go out together (R57), each compacted while it waits. */
interface DelayedEvents {
  readonly taskId: string;
  fallback: StatusFallback;
  readonly events: WaitingEvent[];
  readonly timer: ReturnType<typeof setTimeout>;
}

/** What the service knows about one real (SDK) event bus. */
export interface BusState {
  /** The latest task status seen on the bus (R31). */
  status: TaskStatus | undefined;
  /**
   * Ids of the messages the stored task's history holds, as far as the bus
   * shows (R50): a copy repeating a status whose message is not among them
   * would add that message to the history.
   */
  historyIds: Set<string>;
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
  delayed: DelayedEvents | undefined;
  /**
   * Store keys (storeKeyString) of the callers that started an execution on
   * this bus: their rpcs find the task here before the A2A server stores it
   * (rpc-handlers.ts).
   */
  readonly knownCallers: Set<string>;
  /**
   * Executions on this bus whose `execute` has not returned. The A2A server
   * keeps the bus of an interrupted task after its execution ended; R65
   * holds only while one runs.
   */
  executing: number;
}

/** The status a batch falls back to when the bus has shown none yet, as loaded with its task. */
export interface StatusFallback {
  readonly contextId: string;
  readonly status: TaskStatus | undefined;
  /** The history stored with that status; unknown (undefined) means no message is known to be in it. */
  readonly history: readonly Message[] | undefined;
}

/** No fallback: for a batch published where the bus's own status is known (R31). */
export const NO_FALLBACK: StatusFallback = { contextId: '', status: undefined, history: undefined };

/** The fallback of an execution: its task as the SDK loaded it for the execution. */
export function executionFallback(scope: RequestContext): StatusFallback {
  return { contextId: scope.contextId, status: scope.task?.status, history: scope.task?.history };
}

/** The fallback of an rpc: the task as the rpc looked it up. */
export function taskFallback(task: Task): StatusFallback {
  return { contextId: task.contextId, status: task.status, history: task.history };
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
  /** R57: the buses whose displacement events wait, for {@link flushAllDelayed}. */
  private readonly withDelayed = new Set<ExecutionEventBus>();

  /**
   * @param maxHeldEvents R51: the most events held for one task; past it the
   * oldest go (their records stay listable while retained, R48), so a task
   * that waits for days neither grows nor later stores one huge batch.
   * It also bounds one delayed displacement batch (R57).
   * @param displacedEventDelayMs R57: how long displacement events wait to
   * share one status update; 0 publishes each inject's batch at once.
   */
  constructor(
    private readonly maxHeldEvents: number,
    private readonly displacedEventDelayMs = 0,
  ) {}

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
        historyIds: new Set(),
        contextId: undefined,
        awaitingFirstEvent: 0,
        deferred: [],
        lane: { chain: Promise.resolve(), queued: 0 },
        held: undefined,
        delayed: undefined,
        knownCallers: new Set(),
        executing: 0,
      };
      real.on('event', (event) => {
        observe(s, event);
        // R30, R50: the task's next status can be repeated (it left
        // INPUT_REQUIRED, or its message is in history now); deliver what was
        // held, after this event has reached every listener.
        if (s.held !== undefined && releases(event, s))
          queueMicrotask(() => this.flushHeld(real, s));
      });
      this.states.set(real, s);
      state = s;
    }
    return state;
  }

  /** R57: whether displacement events wait on the bus. */
  hasDelayed(bus: ExecutionEventBus): boolean {
    return this.followed(bus)?.delayed !== undefined;
  }

  /** The state of a bus the service already follows, without starting to follow it. */
  followed(bus: ExecutionEventBus): BusState | undefined {
    return this.states.get(this.real(bus));
  }

  /**
   * R50: the messages of a task's stored history, as an execution loaded it,
   * count as in history on the execution's bus (a task event with an empty
   * history keeps the stored one).
   */
  knowHistory(bus: ExecutionEventBus, history: readonly Message[] | undefined): void {
    const state = this.stateOf(bus);
    for (const message of history ?? []) state.historyIds.add(message.messageId);
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
   * R30, R50: one status update per batch, the batch under the URI, whose
   * `status` repeats the task's current status verbatim (message and
   * timestamp included), so GetTask keeps the agent's message and the
   * history is unchanged. Skipped when no status is known (events stay
   * listable, R32); held when the status cannot be repeated.
   */
  publishBatch(
    bus: ExecutionEventBus,
    taskId: string,
    fallback: StatusFallback,
    events: readonly TaskReminderEvent[],
  ): void {
    if (events.length === 0) return;
    const state = this.stateOf(bus);
    if (this.displacedEventDelayMs > 0 && events.every(isDisplacement)) {
      this.delay(bus, state, taskId, fallback, events);
      return;
    }
    this.flushDelayed(bus);
    this.publishNow(bus, state, taskId, fallback, events);
  }

  /**
   * R57: the displacement events of the task's next injects join these
   * until the delay passes, the batch reaches the R51 bound, or anything
   * else is published on the bus (flushDelayed), so one status update
   * carries them all and their order among the task's events is kept.
   */
  private delay(
    bus: ExecutionEventBus,
    state: BusState,
    taskId: string,
    fallback: StatusFallback,
    events: readonly TaskReminderEvent[],
  ): void {
    // The R51 bound holds for the waiting batch: a full one goes out first.
    if ((state.delayed?.events.length ?? 0) + events.length > this.maxHeldEvents) {
      this.flushDelayed(bus);
    }
    const delayed = state.delayed;
    if (delayed === undefined) {
      const timer = setTimeout(() => this.flushDelayed(bus), this.displacedEventDelayMs);
      // A pending batch never keeps the process alive.
      timer.unref?.();
      state.delayed = { taskId, fallback, events: events.map(waitingEvent), timer };
      this.withDelayed.add(this.real(bus));
    } else {
      delayed.fallback = fallback;
      for (const event of events) delayed.events.push(waitingEvent(event));
    }
  }

  /**
   * R57: publishes the displacement events still waiting, as their own
   * batch. Called before anything else reaches the bus: another batch, an
   * event of the executor, a terminal update, the SDK's failure event.
   */
  flushDelayed(bus: ExecutionEventBus): void {
    const state = this.followed(bus);
    const delayed = state?.delayed;
    if (state === undefined || delayed === undefined) return;
    state.delayed = undefined;
    this.withDelayed.delete(this.real(bus));
    clearTimeout(delayed.timer);
    const events = delayed.events.map(eventOfWaiting);
    if (state.held !== undefined) {
      // Events are held (R30, R50): these join them, as they would have at inject time.
      this.hold(state, events);
      return;
    }
    this.publishNow(bus, state, delayed.taskId, delayed.fallback, events);
  }

  /** R57: every waiting displacement batch goes out now, as its delay would send it. */
  flushAllDelayed(): void {
    for (const bus of [...this.withDelayed]) this.flushDelayed(bus);
  }

  /** R51: held events, newest kept within the bound. */
  private hold(state: BusState, events: readonly TaskReminderEvent[]): void {
    const held = state.held?.events;
    if (held === undefined) return;
    held.push(...events);
    if (held.length > this.maxHeldEvents) held.splice(0, held.length - this.maxHeldEvents);
  }

  private publishNow(
    bus: ExecutionEventBus,
    state: BusState,
    taskId: string,
    fallback: StatusFallback,
    events: readonly TaskReminderEvent[],
  ): void {
    this.publish(bus, () => {
      const fromBus = state.status !== undefined;
      const status = state.status ?? fallback.status;
      if (status === undefined) return undefined;
      const historyIds = fromBus ? state.historyIds : idsOf(fallback.history);
      if (!repeatable(status, historyIds)) {
        if (state.held === undefined) state.held = { taskId, events: [] };
        this.hold(state, events);
        return undefined;
      }
      // Events still held go first, in the same update, so their order is kept.
      const held = state.held?.events ?? [];
      state.held = undefined;
      return AgentEvent.statusUpdate({
        taskId,
        contextId: state.contextId ?? fallback.contextId,
        status: structuredClone(status),
        metadata: batchMetadata(eventBatch(taskId, [...held, ...events])),
      });
    });
  }

  /**
   * R30: a terminal status update about to be forwarded carries the events
   * held while the task was INPUT_REQUIRED (task-end fates included) in its
   * own metadata, so subscribers see them before their stream closes.
   */
  attachHeld(bus: ExecutionEventBus, event: AgentExecutionEvent): AgentExecutionEvent {
    this.flushDelayed(bus);
    const state = this.stateOf(bus);
    const held = state.held;
    if (held === undefined || event.kind !== 'statusUpdate') return event;
    state.held = undefined;
    return AgentEvent.statusUpdate({
      ...event.data,
      metadata: { ...event.data.metadata, ...batchMetadata(eventBatch(held.taskId, held.events)) },
    });
  }

  /**
   * R27, R50: an execution that throws is ended by the SDK's own FAILED task
   * event, which carries no held batch. Events held only because the status
   * message is not in history go out now, on a copy without that message:
   * the SDK's FAILED task event replaces status and history right after, so
   * the stored task ends exactly as it would without reminders. Events held
   * in INPUT_REQUIRED stay held (a copy would close the streams, R30).
   */
  releaseBeforeFailure(bus: ExecutionEventBus): void {
    this.flushDelayed(bus);
    const state = this.stateOf(bus);
    const held = state.held;
    const status = state.status;
    if (held === undefined || status === undefined) return;
    if (status.state === TaskState.TASK_STATE_INPUT_REQUIRED) return;
    state.held = undefined;
    this.publish(bus, () =>
      AgentEvent.statusUpdate({
        taskId: held.taskId,
        contextId: state.contextId ?? '',
        status: { ...structuredClone(status), message: undefined },
        metadata: batchMetadata(eventBatch(held.taskId, held.events)),
      }),
    );
  }

  private flushHeld(real: ExecutionEventBus, state: BusState): void {
    const held = state.held;
    if (held === undefined) return;
    // Events still delayed are newer than the held ones and join them (R57, R51).
    this.flushDelayed(real);
    state.held = undefined;
    this.publishNow(real, state, held.taskId, NO_FALLBACK, held.events);
  }
}

/**
 * Whether a reminder update may repeat `status` verbatim. Not while
 * INPUT_REQUIRED (R30): the SDK ends every stream (and the queue CancelTask
 * reads) at a status update in that state. Not when its message is not known
 * to be in the history (R50): the SDK appends a status update's message to
 * the history unless a message with its id is there already, and a status
 * that arrived in a task event was stored without appending it.
 */
function repeatable(status: TaskStatus, historyIds: ReadonlySet<string>): boolean {
  if (status.state === TaskState.TASK_STATE_INPUT_REQUIRED) return false;
  return status.message === undefined || historyIds.has(status.message.messageId);
}

/** A task or status event after which the held events can go out as a copy of their own. */
function releases(event: AgentExecutionEvent, state: BusState): boolean {
  if (event.kind !== 'task' && event.kind !== 'statusUpdate') return false;
  const status = state.status;
  // A terminal update carries the held events itself (R27, attachHeld).
  return (
    status !== undefined && !isTerminalState(status.state) && repeatable(status, state.historyIds)
  );
}

function isDisplacement(event: TaskReminderEvent): boolean {
  return event.event.case === 'displaced';
}

function idsOf(history: readonly Message[] | undefined): ReadonlySet<string> {
  return new Set((history ?? []).map((m) => m.messageId));
}

/**
 * Follows the status and, as the SDK's ResultManager stores them, the
 * history's message ids (R31, R50): a task event with a history replaces the
 * stored history (an empty one keeps it) and does not append its status
 * message; a status update appends its message.
 */
function observe(state: BusState, event: AgentExecutionEvent): void {
  if (event.kind === 'task') {
    state.contextId = event.data.contextId;
    if (event.data.status !== undefined) state.status = event.data.status;
    const history = event.data.history ?? [];
    if (history.length > 0) state.historyIds = new Set(history.map((m) => m.messageId));
  } else if (event.kind === 'statusUpdate') {
    state.contextId = event.data.contextId;
    if (event.data.status !== undefined) state.status = event.data.status;
    const message = event.data.status?.message;
    if (message !== undefined) state.historyIds.add(message.messageId);
  }
}
