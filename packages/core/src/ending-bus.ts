import type { TaskState } from '@a2a-js/sdk';
import type {
  AgentExecutionEvent,
  EventListener,
  ExecutionEventBus,
  ExecutionEventName,
  FinishedListener,
} from '@a2a-js/sdk/server';
import type { ForwardingBus, PublishLane } from './publisher.js';
import { isTerminalState } from './task-states.js';

/** The terminal state an event announces, if it announces one. */
export function terminalStateOf(event: AgentExecutionEvent): TaskState | undefined {
  let state: TaskState | undefined;
  if (event.kind === 'task') state = event.data.status?.state;
  else if (event.kind === 'statusUpdate') state = event.data.status?.state;
  return isTerminalState(state) ? state : undefined;
}

export interface EndingBusHooks {
  /**
   * Runs before a terminal event is forwarded (R28) and returns the event to
   * forward in its place. `first` is true when the execution has not
   * forwarded its first task or message event yet; `forward` publishes
   * events ahead of it.
   */
  beforeTerminal(
    state: TaskState,
    event: AgentExecutionEvent,
    first: boolean,
    forward: (event: AgentExecutionEvent) => void,
  ): Promise<AgentExecutionEvent>;
  /** The execution's first task or message event was forwarded (or the execution ended without one). */
  onFirstEvent(): void;
  /** Runs before any event of the executor reaches the bus (R57: delayed events go first). */
  beforeEvent(): void;
}

/**
 * The bus an executor wrapped by the service publishes on. A terminal event
 * waits until the task's reminders have ended and their events are published
 * (R27, R28); later events queue behind it, so the order the executor chose
 * is kept. Every EndingBus over one SDK bus shares one lane: an execution's
 * drain then also waits for a terminal event its task's cancelTask is holding,
 * so the SDK never closes the bus before that event is forwarded (R28).
 */
export class EndingBus implements ForwardingBus {
  private started: boolean;

  /** `started` is true for a bus that does not begin an execution (cancelTask). */
  constructor(
    readonly inner: ExecutionEventBus,
    private readonly hooks: EndingBusHooks,
    private readonly lane: PublishLane,
    started = false,
  ) {
    this.started = started;
  }

  /** Whether the execution forwarded its first task or message event. */
  get hasStarted(): boolean {
    return this.started;
  }

  publish(event: AgentExecutionEvent): void {
    const terminal = terminalStateOf(event);
    if (terminal === undefined && this.lane.queued === 0) {
      this.forward(event);
      return;
    }
    this.enqueue(async () => {
      let out = event;
      if (terminal !== undefined) {
        try {
          out = await this.hooks.beforeTerminal(terminal, event, !this.started, (e) =>
            this.forward(e),
          );
        } catch (error) {
          // The terminal event must reach the task whatever happened to its reminders.
          console.error('task reminders: ending reminders before a terminal event failed', error);
        }
      }
      this.forward(out);
    });
  }

  finished(): void {
    if (this.lane.queued === 0) this.inner.finished();
    else this.enqueue(async () => this.inner.finished());
  }

  /** Resolves when every event queued on the lane, including ones queued meanwhile, is forwarded. */
  async drain(): Promise<void> {
    let chain: Promise<void>;
    do {
      chain = this.lane.chain;
      await chain;
    } while (chain !== this.lane.chain);
  }

  /** Marks the start of execution as done without a first event. */
  settleFirstEvent(): void {
    if (!this.started) {
      this.started = true;
      this.hooks.onFirstEvent();
    }
  }

  on(eventName: 'event', listener: EventListener): this;
  on(eventName: 'finished', listener: FinishedListener): this;
  on(eventName: ExecutionEventName, listener: EventListener | FinishedListener): this {
    this.inner.on(eventName as 'event', listener as EventListener);
    return this;
  }

  off(eventName: 'event', listener: EventListener): this;
  off(eventName: 'finished', listener: FinishedListener): this;
  off(eventName: ExecutionEventName, listener: EventListener | FinishedListener): this {
    this.inner.off(eventName as 'event', listener as EventListener);
    return this;
  }

  once(eventName: 'event', listener: EventListener): this;
  once(eventName: 'finished', listener: FinishedListener): this;
  once(eventName: ExecutionEventName, listener: EventListener | FinishedListener): this {
    this.inner.once(eventName as 'event', listener as EventListener);
    return this;
  }

  removeAllListeners(eventName?: ExecutionEventName): this {
    this.inner.removeAllListeners(eventName);
    return this;
  }

  private forward(event: AgentExecutionEvent): void {
    this.hooks.beforeEvent();
    this.inner.publish(event);
    if (!this.started && (event.kind === 'task' || event.kind === 'message')) {
      this.started = true;
      this.hooks.onFirstEvent();
    }
  }

  private enqueue(step: () => Promise<void>): void {
    const lane = this.lane;
    lane.queued += 1;
    lane.chain = lane.chain
      .then(step)
      .catch((error: unknown) => {
        console.error('task reminders: forwarding an event failed', error);
      })
      .finally(() => {
        lane.queued -= 1;
      });
  }
}
