import type { AgentExtension, TaskState } from '@a2a-js/sdk';
import type {
  AgentExecutor,
  ExecutionEventBus,
  ExecutionEventBusManager,
  OwnerResolver,
  RequestContext,
  ServerCallContext,
  TaskStore,
} from '@a2a-js/sdk/server';
import type {
  CancelTaskReminderRequest,
  CancelTaskReminderResponse,
  InjectTaskReminderRequest,
  InjectTaskReminderResponse,
  ListTaskRemindersRequest,
  ListTaskRemindersResponse,
} from '@a2a-reminders/proto';
import type { FieldViolation } from './errors.js';
import type { DEFAULT_DISPLACED_EVENT_DELAY_MS, ReminderLimits } from './limits.js';
import type { ReminderFields } from './reminder-content.js';
import type { ForwardRemindersOptions, ReminderForwarding } from './reminder-forwarding.js';
import type { ReminderChangeSignal, ReminderStore } from './store.js';

/**
 * The three rpcs of TaskReminderService, transport-agnostic. Method names are
 * the rpcs' protobuf-es local names, so a binding dispatches with
 * `handler[rpc.method.localName]` and never lists the rpcs by hand.
 * Every method throws only {@link ReminderError}.
 *
 * `readViolations` are the fields a binding could not read off the wire
 * (core's `readRequestJson` / `readRequestBinary`); they are absent from
 * `request`. A handler MUST refuse such a call with INVALID_ARGUMENT carrying
 * them together with its own violations, after authentication and
 * activation (R5, R8, R45). In-process callers pass none.
 */
export interface ReminderRpcHandler {
  injectTaskReminder(
    request: InjectTaskReminderRequest,
    context: ServerCallContext,
    readViolations?: readonly FieldViolation[],
  ): Promise<InjectTaskReminderResponse>;
  listTaskReminders(
    request: ListTaskRemindersRequest,
    context: ServerCallContext,
    readViolations?: readonly FieldViolation[],
  ): Promise<ListTaskRemindersResponse>;
  cancelTaskReminder(
    request: CancelTaskReminderRequest,
    context: ServerCallContext,
    readViolations?: readonly FieldViolation[],
  ): Promise<CancelTaskReminderResponse>;
}

/**
 * A live reminder as the worker's runtime receives it at a turn boundary:
 * the TaskReminder's fields (strings `''` when the caller gave none), with
 * what is left of its ttl instead of the ttl itself.
 */
export interface SurfacedReminder extends Readonly<Omit<ReminderFields, 'ttlTurns'>> {
  /** How many more turns it will be surfaced on after this one. */
  readonly turnsRemaining: number;
  /** True on the turn it is surfaced for the first time. */
  readonly firstSurfacing: boolean;
}

/** What one turn boundary yields: the turn number and its live reminders. */
export interface ReminderTurn {
  readonly taskId: string;
  /** 1-based turn number within the task. */
  readonly turn: number;
  /** Live reminders for this turn, in acceptance order. */
  readonly reminders: readonly SurfacedReminder[];
}

/**
 * The reminder service: the rpcs for callers, turn boundaries for the worker's
 * runtime, and the A2A glue (task lookup, event publishing, agent card).
 */
export interface ReminderService extends ReminderRpcHandler {
  readonly limits: ReminderLimits;

  /**
   * Marks a turn boundary of the task this execution runs and atomically
   * returns the reminders for that turn (spec: Turns). Publishes the EMITTED,
   * and any EXPIRED, events of this boundary as one status update.
   */
  beginTurn(requestContext: RequestContext, eventBus: ExecutionEventBus): Promise<ReminderTurn>;

  /**
   * Ends every live reminder of the task (DROPPED if it never reached a turn,
   * EXPIRED if it did) and publishes those events, before the caller publishes
   * the terminal status (spec: Task end). Idempotent.
   */
  endTask(
    requestContext: RequestContext,
    eventBus: ExecutionEventBus,
    finalState: TaskState,
  ): Promise<void>;

  /**
   * Wraps an executor so that every terminal status it publishes (including
   * from `cancelTask`, and a FAILED one when `execute` throws) is preceded by
   * {@link endTask}. Workers should always run their executor through this.
   */
  wrapExecutor(executor: AgentExecutor): AgentExecutor;

  /**
   * Wraps the SDK TaskStore given to the DefaultRequestHandler so that no
   * reminder event batch is stored with a task (R66): GetTask, ListTasks and
   * every later load see the task as the agent left it, while streams and
   * push notifications carry the batches as before. Agents should always
   * hand the A2A server their store through this.
   */
  wrapTaskStore(taskStore: TaskStore): TaskStore;

  /**
   * Publishes at once every displacement batch that waits for R57's delay,
   * as the delay passing would (R67): for a server that stops without ending
   * its tasks, while its streams are still open, and for measurements. Ending
   * a task sends its waiting batch first anyway (R57).
   */
  publishDelayedEvents(): void;

  /**
   * Forwards the task's reminders into a sub-task that this execution
   * delegated to another A2A agent (R58–R64): every live reminder the filter
   * lets through, now and as they are accepted, goes to the sub-task as a
   * copy with provenance; cancelling or displacing the original reaches the
   * copy; what becomes of each copy is listed on the original's record and
   * published on the task's stream as `forward` events. Call `close()` when
   * the delegation is over.
   */
  forwardReminders(
    requestContext: RequestContext,
    eventBus: ExecutionEventBus,
    options: ForwardRemindersOptions,
  ): ReminderForwarding;

  /**
   * The agent-card entry for `capabilities.extensions`: the extension URI,
   * `required: false`, and `params` listing this service's limits and the
   * events it emits.
   */
  agentExtension(): AgentExtension;
}

export interface ReminderServiceOptions {
  /** The SDK TaskStore the DefaultRequestHandler uses; tasks are looked up in it with the caller's context. */
  readonly taskStore: TaskStore;
  /** The SDK bus manager the DefaultRequestHandler uses; events are published on the task's bus. */
  readonly eventBusManager: ExecutionEventBusManager;
  /** Where reminder records live; defaults to an in-memory store. */
  readonly store?: ReminderStore;
  /** Overrides of {@link defaultReminderLimits}. */
  readonly limits?: Partial<ReminderLimits>;
  /** The owner resolver given to the SDK stores, so reminders are scoped like tasks. */
  readonly ownerResolver?: OwnerResolver;
  /** Refuse unauthenticated callers with UNAUTHENTICATED (default false, like the SDK). */
  readonly requireAuthentication?: boolean;
  /** Clock, for tests. */
  readonly now?: () => Date;
  /**
   * R57: how long the displacement events of injects wait on a task's bus to
   * share one status update, in ms (default {@link DEFAULT_DISPLACED_EVENT_DELAY_MS});
   * 0 publishes each inject's batch at once. Anything else published on the
   * task sends them first.
   */
  readonly displacedEventDelayMs?: number;
  /**
   * Replicas sharing one store (spec: Multi-replica deployments): wakes this
   * replica when another commits events of a task it runs. With it, every
   * step's events are appended to the store's event log (the store must have
   * one, {@link ReminderStore.eventLog}) and delivered from it in commit
   * order (R52, R54).
   */
  readonly changeSignal?: ReminderChangeSignal;
}
