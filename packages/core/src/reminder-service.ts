import type { AgentExtension, Task, TaskStatus } from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import type {
  AgentExecutionEvent,
  AgentExecutor,
  ExecutionEventBus,
  ExecutionEventBusManager,
  OwnerResolver,
  RequestContext,
  ServerCallContext,
  TaskStore,
} from '@a2a-js/sdk/server';
import { AgentEvent, resolveUserScope } from '@a2a-js/sdk/server';
import type {
  CancelTaskReminderRequest,
  CancelTaskReminderResponse,
  InjectTaskReminderRequest,
  InjectTaskReminderResponse,
  ListTaskRemindersRequest,
  ListTaskRemindersResponse,
  TaskReminder,
} from '@a2a-reminders/proto';
import {
  CancelTaskReminderResponseSchema,
  ListTaskRemindersResponseSchema,
} from '@a2a-reminders/proto';
import { create } from '@bufbuild/protobuf';
import { reminderAgentExtension } from './agent-card.js';
import type { FieldViolation } from './errors.js';
import { ReminderError } from './errors.js';
import { EndingBus } from './executor-wrapper.js';
import { TASK_REMINDERS_EXTENSION_URI } from './extension-uri.js';
import { InMemoryReminderStore } from './in-memory-store.js';
import { withoutNegativeZero } from './json-safety.js';
import type { Outcome } from './lifecycle.js';
import { accept, cancel, endAll, replayIfKnown, takeTurn, terminalError } from './lifecycle.js';
import type { ReminderLimits } from './limits.js';
import { defaultReminderLimits } from './limits.js';
import { encodePageToken, pageQueryOf } from './list-page.js';
import type { StatusFallback } from './publisher.js';
import { BusRegistry } from './publisher.js';
import { recordOf } from './records.js';
import { encodeEventBatch, ReplicaDelivery } from './replica-delivery.js';
import {
  cancelRequestViolations,
  injectRequestViolations,
  listRequestViolations,
} from './request-checks.js';
import type { ReminderService, ReminderServiceOptions, ReminderTurn } from './service.js';
import type { ReminderStore, ReminderStoreKey, ReminderTransaction } from './store.js';
import { isLiveState } from './store.js';
import { isTerminalState, taskStateName } from './task-states.js';
import { throwIfInvalid } from './validation.js';

/** Creates the reminder service (issue 3; rules in docs/extension-spec.md). */
export function createReminderService(options: ReminderServiceOptions): ReminderService {
  return new DefaultReminderService(options);
}

class DefaultReminderService implements ReminderService {
  readonly limits: ReminderLimits;
  private readonly taskStore: TaskStore;
  private readonly busManager: ExecutionEventBusManager;
  private readonly store: ReminderStore;
  private readonly ownerResolver: OwnerResolver;
  private readonly requireAuthentication: boolean;
  private readonly now: () => Date;
  private readonly buses: BusRegistry;
  /** The execution scope behind each SDK bus, so cancelTask(taskId, bus) can end reminders (R28). */
  private readonly scopes = new WeakMap<ExecutionEventBus, RequestContext>();
  private lastSweepMs = Number.NEGATIVE_INFINITY;
  /** Set with a change signal: events go through the store's log to the replica running the task (R52). */
  private readonly replicas: ReplicaDelivery | undefined;

  constructor(options: ReminderServiceOptions) {
    this.limits = { ...defaultReminderLimits, ...options.limits };
    // R51: as many held events as the task can have records listed.
    this.buses = new BusRegistry(
      this.limits.maxLiveRemindersPerTask + this.limits.maxRetainedFinalRemindersPerTask,
    );
    this.taskStore = options.taskStore;
    this.busManager = options.eventBusManager;
    this.store = options.store ?? new InMemoryReminderStore();
    this.ownerResolver = options.ownerResolver ?? resolveUserScope;
    this.requireAuthentication = options.requireAuthentication ?? false;
    this.now = options.now ?? (() => new Date());
    if (options.changeSignal !== undefined) {
      const log = this.store.eventLog;
      if (log === undefined) {
        throw new Error('a change signal needs a reminder store with an event log (a SQL store)');
      }
      this.replicas = new ReplicaDelivery(log, options.changeSignal, this.buses);
    }
  }

  async injectTaskReminder(
    request: InjectTaskReminderRequest,
    context: ServerCallContext,
    readViolations: readonly FieldViolation[] = [],
  ): Promise<InjectTaskReminderResponse> {
    return this.guard(async () => {
      const task = await this.enter(context, request.taskId, () =>
        injectRequestViolations(request, this.limits, readViolations),
      );
      const reminder = storable(request.reminder);
      const taskId = request.taskId;
      const key = this.keyOf(context, taskId);
      const state = task.status?.state;
      const nowMs = this.nowMs();
      const outcome = await this.commit(
        key,
        async (tx): Promise<Outcome<InjectTaskReminderResponse>> => {
          const replay = await replayIfKnown(tx, taskId, reminder);
          if (replay !== undefined) return { result: replay, events: [] };
          if (tx.ended !== undefined) throw terminalError(taskId, tx.ended.taskState);
          if (isTerminalState(state)) throw terminalError(taskId, taskStateName(state));
          return accept(tx, {
            taskId,
            reminder,
            taskState: taskStateName(state),
            nowMs,
            limits: this.limits,
          });
        },
      );
      await this.publishToTask(context, key, task, outcome);
      return outcome.result;
    });
  }

  async listTaskReminders(
    request: ListTaskRemindersRequest,
    context: ServerCallContext,
    readViolations: readonly FieldViolation[] = [],
  ): Promise<ListTaskRemindersResponse> {
    return this.guard(async () => {
      await this.enter(context, request.taskId, () =>
        listRequestViolations(request, readViolations),
      );
      // R49: one page, read atomically; the token names the last record's sequence number.
      const page = await this.store.page(this.keyOf(context, request.taskId), pageQueryOf(request));
      // R35: past retention, records are gone even before a sweep deletes them.
      if (page === undefined || this.expired(page.ended?.purgeAfterMs)) {
        return create(ListTaskRemindersResponseSchema, { reminders: [] });
      }
      const last = page.reminders.at(-1);
      return create(ListTaskRemindersResponseSchema, {
        reminders: page.reminders.map((r) => recordOf(request.taskId, r)),
        nextPageToken: page.more && last !== undefined ? encodePageToken(last.seq) : '',
      });
    });
  }

  async cancelTaskReminder(
    request: CancelTaskReminderRequest,
    context: ServerCallContext,
    readViolations: readonly FieldViolation[] = [],
  ): Promise<CancelTaskReminderResponse> {
    return this.guard(async () => {
      const task = await this.enter(context, request.taskId, () =>
        cancelRequestViolations(request, readViolations),
      );
      const key = this.keyOf(context, request.taskId);
      const nowMs = this.nowMs();
      const outcome = await this.commit(key, async (tx) => {
        if (tx.ended !== undefined && this.expired(tx.ended.purgeAfterMs)) {
          throw notFoundReminder(request.taskId, request.reminderId);
        }
        return cancel(tx, request.taskId, request.reminderId, nowMs, this.limits);
      });
      await this.publishToTask(context, key, task, outcome);
      return create(CancelTaskReminderResponseSchema, { record: outcome.result });
    });
  }

  async beginTurn(
    requestContext: RequestContext,
    eventBus: ExecutionEventBus,
  ): Promise<ReminderTurn> {
    this.buses.stateOf(eventBus);
    const key = this.keyOf(requestContext.context, requestContext.taskId);
    const outcome = await this.commit(key, (tx) => takeTurn(tx, this.nowMs(), this.limits));
    await this.deliver(key, eventBus, fallbackOf(requestContext), outcome);
    return {
      taskId: requestContext.taskId,
      turn: outcome.result.turn,
      reminders: outcome.result.reminders,
    };
  }

  async endTask(
    requestContext: RequestContext,
    eventBus: ExecutionEventBus,
    finalState: TaskState,
  ): Promise<void> {
    await this.endReminders(
      this.keyOf(requestContext.context, requestContext.taskId),
      finalState,
      eventBus,
      fallbackOf(requestContext),
    );
  }

  wrapExecutor(executor: AgentExecutor): AgentExecutor {
    return {
      execute: async (requestContext, eventBus) => {
        const real = this.buses.real(eventBus);
        this.scopes.set(real, requestContext);
        this.buses.stateOf(real).awaitingFirstEvent += 1;
        // R50: what the stored history holds, so reminder updates can repeat its messages.
        this.buses.knowHistory(real, requestContext.task?.history);
        const bus = this.endingBus(real, requestContext, false);
        const key = this.keyOf(requestContext.context, requestContext.taskId);
        try {
          // R52: this replica runs the task, so it delivers the task's events
          // committed anywhere, for as long as the bus lives. Without replicas
          // nothing is awaited here: the executor starts in the same tick.
          if (this.replicas !== undefined) {
            await this.replicas.follow(key, real, fallbackOf(requestContext));
          }
          await executor.execute(requestContext, bus);
          await bus.drain();
        } catch (error) {
          await bus.drain();
          // R28: a failed execution ends its reminders as FAILED. Before the
          // execution's first event nothing may be published on its stream.
          await this.endReminders(
            key,
            TaskState.TASK_STATE_FAILED,
            bus.hasStarted ? real : undefined,
            fallbackOf(requestContext),
          ).catch((e: unknown) => console.error('task reminders: ending reminders failed', e));
          if (bus.hasStarted) this.buses.releaseBeforeFailure(real);
          throw error;
        } finally {
          bus.settleFirstEvent();
        }
      },
      cancelTask: async (taskId, eventBus) => {
        const real = this.buses.real(eventBus);
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

  agentExtension(): AgentExtension {
    return reminderAgentExtension(this.limits);
  }

  /** R28: the bus an executor publishes on, ending reminders before a terminal event. */
  private endingBus(real: ExecutionEventBus, scope: RequestContext, started: boolean): EndingBus {
    const key = this.keyOf(scope.context, scope.taskId);
    const fallback = fallbackOf(scope);
    return new EndingBus(
      real,
      {
        beforeTerminal: async (state, event, first, forward) => {
          if (first && event.kind === 'task' && scope.task !== undefined) {
            return this.splitTerminalTask(key, scope, real, state, event.data, forward);
          }
          await this.endReminders(key, state, first ? undefined : real, fallback);
          // R30: fates held while the task was INPUT_REQUIRED ride on the terminal update.
          return this.buses.attachHeld(real, event);
        },
        onFirstEvent: () => this.buses.firstEventDone(real),
      },
      this.buses.stateOf(real).lane,
      started,
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
  private async splitTerminalTask(
    key: ReminderStoreKey,
    scope: RequestContext,
    real: ExecutionEventBus,
    state: TaskState,
    task: Task,
    forward: (event: AgentExecutionEvent) => void,
  ): Promise<AgentExecutionEvent> {
    const snapshot = await this.store.read(key);
    const live =
      snapshot !== undefined &&
      snapshot.ended === undefined &&
      snapshot.reminders.some((r) => isLiveState(r.state));
    if (!live) {
      await this.endReminders(key, state, undefined, fallbackOf(scope));
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

  /** R27: ends every live reminder, then publishes their events (if a bus is given). */
  private async endReminders(
    key: ReminderStoreKey,
    finalState: TaskState,
    bus: ExecutionEventBus | undefined,
    fallback: StatusFallback,
  ): Promise<void> {
    const outcome = await this.commit(key, (tx) =>
      endAll(tx, taskStateName(finalState), this.nowMs(), this.limits),
    );
    // No bus: nothing may be published on the stream yet (R28).
    await this.deliver(key, bus, fallback, outcome, bus === undefined);
  }

  /**
   * One store transaction of a lifecycle step. With replicas its events are
   * appended to the task's log in the same transaction (R52), so they commit
   * (or roll back) with the records they describe.
   */
  private commit<T>(
    key: ReminderStoreKey,
    step: (tx: ReminderTransaction) => Promise<Outcome<T>>,
  ): Promise<Committed<T>> {
    return this.store.transact(key, async (tx) => {
      const outcome = await step(tx);
      if (this.replicas === undefined || outcome.events.length === 0) return outcome;
      if (tx.appendEvents === undefined) {
        throw new Error('the reminder store has an event log but its transactions cannot append');
      }
      return { ...outcome, seq: tx.appendEvents(encodeEventBatch(key.taskId, outcome.events)) };
    });
  }

  /**
   * R30, R52: a step's events go to the stream of the task's execution:
   * through the replica delivery when this replica follows the task (so
   * batches committed elsewhere keep their order), else straight onto the
   * local bus, if any. No bus here: the events stay listable (R32).
   * `silent`: recorded as delivered, never published (R28).
   */
  private async deliver(
    key: ReminderStoreKey,
    bus: ExecutionEventBus | undefined,
    fallback: StatusFallback,
    outcome: Committed<unknown>,
    silent = false,
  ): Promise<void> {
    if (outcome.events.length === 0) return;
    if (this.replicas?.follows(key) && outcome.seq !== undefined) {
      await this.replicas.committed(key, outcome.seq, outcome.events, fallback, !silent);
      return;
    }
    if (bus !== undefined && !silent) {
      this.buses.publishBatch(bus, key.taskId, fallback, outcome.events);
    }
  }

  /**
   * R5, R3, R8, R7 in that order: authentication, activation, validation,
   * then the task lookup with the caller's own context. A terminal task whose
   * reminders are still live has them ended now (R29).
   */
  private async enter(
    context: ServerCallContext,
    taskId: string,
    violations: () => FieldViolation[],
  ): Promise<Task> {
    if (this.requireAuthentication && !context.user?.isAuthenticated) {
      throw new ReminderError('UNAUTHENTICATED', 'authentication required');
    }
    if (!context.requestedExtensions?.includes(TASK_REMINDERS_EXTENSION_URI)) {
      throw new ReminderError(
        'EXTENSION_NOT_ACTIVATED',
        `activate ${TASK_REMINDERS_EXTENSION_URI} in A2A-Extensions to use task reminders`,
        { metadata: { extension: TASK_REMINDERS_EXTENSION_URI } },
      );
    }
    context.addActivatedExtension(TASK_REMINDERS_EXTENSION_URI);
    throwIfInvalid(violations());
    const task = await this.taskStore.load(taskId, context);
    // R7: one message and metadata for unknown and foreign tasks alike.
    if (task === undefined || task.id !== taskId) {
      throw new ReminderError('TASK_NOT_FOUND', `Task not found: ${taskId}`, {
        metadata: { taskId },
      });
    }
    await this.maybeSweep();
    const state = task.status?.state;
    if (state !== undefined && isTerminalState(state) && (await this.unended(context, taskId))) {
      await this.endReminders(
        this.keyOf(context, taskId),
        state,
        this.busManager.getByTaskId(taskId, context),
        { contextId: task.contextId, status: task.status, history: task.history },
      );
    }
    return task;
  }

  /**
   * R29 needs a write only for a task whose reminders were never ended. A
   * plain read first keeps List and Cancel of ended tasks read-only, and a
   * swept task's records from coming back with a new retention period.
   */
  private async unended(context: ServerCallContext, taskId: string): Promise<boolean> {
    const first = await this.store.page(this.keyOf(context, taskId), {
      afterSeq: 0,
      limit: 1,
      liveOnly: false,
    });
    return first !== undefined && first.ended === undefined;
  }

  /** R30, R32: events of an rpc go to the task's bus if it has one. */
  private async publishToTask(
    context: ServerCallContext,
    key: ReminderStoreKey,
    task: Task,
    outcome: Committed<unknown>,
  ): Promise<void> {
    const bus = this.busManager.getByTaskId(task.id, context);
    // Listen from now on, so later copies follow the bus's own status (R31).
    if (bus !== undefined) this.buses.stateOf(bus);
    await this.deliver(
      key,
      bus,
      { contextId: task.contextId, status: task.status, history: task.history },
      outcome,
    );
  }

  private keyOf(context: ServerCallContext, taskId: string): ReminderStoreKey {
    return { tenant: context.tenant ?? '', owner: this.ownerResolver(context), taskId };
  }

  private nowMs(): number {
    return this.now().getTime();
  }

  private expired(purgeAfterMs: number | undefined): boolean {
    return purgeAfterMs !== undefined && purgeAfterMs <= this.nowMs();
  }

  /**
   * R35: a lazy sweep, at most once per min(retention, 1 min); no timers.
   * Purging is housekeeping: a failed sweep (say, a busy database) is logged
   * and retried later, never answered to the caller who happened to trigger it.
   */
  private async maybeSweep(): Promise<void> {
    const nowMs = this.nowMs();
    if (nowMs - this.lastSweepMs < Math.min(this.limits.retentionMs, 60_000)) return;
    this.lastSweepMs = nowMs;
    await this.store.sweep(nowMs).catch((error: unknown) => {
      console.error('task reminders: sweeping ended tasks failed', error);
    });
  }

  private async guard<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw ReminderError.from(error);
    }
  }
}

/** R44: the validated reminder as it is stored, numbers as ProtoJSON reads them back. */
function storable(reminder: TaskReminder | undefined): TaskReminder {
  if (reminder === undefined) throw new ReminderError('INTERNAL', 'internal error');
  const metadata = withoutNegativeZero(reminder.metadata);
  return metadata === reminder.metadata ? reminder : { ...reminder, metadata };
}

/** A lifecycle step's outcome, with its batch's log position when replicas are on (R52). */
type Committed<T> = Outcome<T> & { readonly seq?: number };

function fallbackOf(scope: RequestContext): StatusFallback {
  return { contextId: scope.contextId, status: scope.task?.status, history: scope.task?.history };
}

function notFoundReminder(taskId: string, reminderId: string): ReminderError {
  return new ReminderError('REMINDER_NOT_FOUND', `task ${taskId} has no reminder ${reminderId}`, {
    metadata: { taskId, reminderId },
  });
}
