import type { TaskStatus } from '@a2a-js/sdk';
import type {
  ExecutionEventBus,
  ExecutionEventBusManager,
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
  TaskReminder,
} from '@a2a-reminders/proto';
import {
  CancelTaskReminderResponseSchema,
  ListTaskRemindersResponseSchema,
} from '@a2a-reminders/proto';
import { create } from '@bufbuild/protobuf';
import type { FieldViolation } from './errors.js';
import { ReminderError } from './errors.js';
import { TASK_REMINDERS_EXTENSION_URI } from './extension-uri.js';
import { withoutNegativeZero } from './json-safety.js';
import type { LazySweeper } from './lazy-sweeper.js';
import type { Outcome } from './lifecycle.js';
import { accept, cancel, notFoundError, replayIfKnown, terminalError } from './lifecycle.js';
import { encodePageToken, pageQueryOf } from './list-page.js';
import type { StatusFallback } from './publisher.js';
import { NO_FALLBACK, taskFallback } from './publisher.js';
import { recordOf } from './records.js';
import type { Committed, ReminderSteps } from './reminder-steps.js';
import {
  cancelRequestViolations,
  injectRequestViolations,
  listRequestViolations,
} from './request-checks.js';
import type { ReminderRpcHandler } from './service.js';
import type { ReminderStoreKey } from './store.js';
import { storeKeyString } from './store.js';
import type { TaskEnd } from './task-end.js';
import { isTerminalState, taskStateName } from './task-states.js';
import { throwIfForwardRefused, throwIfInvalid } from './validation.js';

export interface ReminderRpcsParts {
  readonly steps: ReminderSteps;
  readonly taskEnd: TaskEnd;
  readonly sweeper: LazySweeper;
  readonly taskStore: TaskStore;
  readonly busManager: ExecutionEventBusManager;
  readonly requireAuthentication: boolean;
}

/** The three rpcs of TaskReminderService over the service's store and the SDK's task store. */
export class ReminderRpcs implements ReminderRpcHandler {
  private readonly steps: ReminderSteps;

  constructor(private readonly parts: ReminderRpcsParts) {
    this.steps = parts.steps;
  }

  async injectTaskReminder(
    request: InjectTaskReminderRequest,
    context: ServerCallContext,
    readViolations: readonly FieldViolation[] = [],
  ): Promise<InjectTaskReminderResponse> {
    // Every rpc throws only ReminderError (ReminderRpcHandler's contract).
    // The steps are written out, without a wrapper closure per call: this is
    // the path of every inject.
    try {
      const taskId = request.taskId;
      this.admit(context);
      throwIfInvalid(injectRequestViolations(request, this.steps.limits, readViolations));
      throwIfForwardRefused(request, this.steps.limits);
      const { key, task } = await this.lookUp(context, taskId, true);
      const reminder = storable(request.reminder);
      const state = task.status?.state;
      const nowMs = this.steps.nowMs();
      const outcome = await this.steps.commit(
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
            limits: this.steps.limits,
          });
        },
      );
      const publishing = this.publishToTask(context, key, task, outcome);
      if (publishing !== undefined) await publishing;
      this.steps.changed(key);
      return outcome.result;
    } catch (error) {
      throw ReminderError.from(error);
    }
  }

  async listTaskReminders(
    request: ListTaskRemindersRequest,
    context: ServerCallContext,
    readViolations: readonly FieldViolation[] = [],
  ): Promise<ListTaskRemindersResponse> {
    try {
      this.admit(context);
      throwIfInvalid(listRequestViolations(request, readViolations));
      const { key } = await this.lookUp(context, request.taskId);
      // R49: one page, read atomically; the token names the last record's sequence number.
      const page = await this.steps.store.page(key, pageQueryOf(request));
      if (page === undefined || this.steps.expired(page.ended?.purgeAfterMs)) {
        return create(ListTaskRemindersResponseSchema, { reminders: [] });
      }
      const last = page.reminders.at(-1);
      return create(ListTaskRemindersResponseSchema, {
        reminders: page.reminders.map((r) => recordOf(request.taskId, r)),
        nextPageToken: page.more && last !== undefined ? encodePageToken(last.seq) : '',
      });
    } catch (error) {
      throw ReminderError.from(error);
    }
  }

  async cancelTaskReminder(
    request: CancelTaskReminderRequest,
    context: ServerCallContext,
    readViolations: readonly FieldViolation[] = [],
  ): Promise<CancelTaskReminderResponse> {
    try {
      this.admit(context);
      throwIfInvalid(cancelRequestViolations(request, readViolations));
      const { key, task } = await this.lookUp(context, request.taskId);
      const nowMs = this.steps.nowMs();
      const outcome = await this.steps.commit(key, async (tx) => {
        if (tx.ended !== undefined && this.steps.expired(tx.ended.purgeAfterMs)) {
          throw notFoundError(request.taskId, request.reminderId);
        }
        return cancel(tx, request.taskId, request.reminderId, nowMs, this.steps.limits);
      });
      await this.publishToTask(context, key, task, outcome);
      this.steps.changed(key);
      return create(CancelTaskReminderResponseSchema, { record: outcome.result });
    } catch (error) {
      throw ReminderError.from(error);
    }
  }

  /**
   * R5 then R3: authentication, then activation. Each rpc then checks its
   * request (R8; for an inject, R60 and R61 too) before {@link lookUp}.
   */
  private admit(context: ServerCallContext): void {
    if (this.parts.requireAuthentication && !context.user?.isAuthenticated) {
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
  }

  /**
   * R7, once the request passed its checks: the task as the caller's own
   * context finds it. An inject takes a running execution's view first
   * (R65); otherwise the task store is read, and a terminal task whose
   * reminders are still live has them ended now (R29). A task the A2A
   * server has not stored yet is found on its bus either way.
   */
  private async lookUp(
    context: ServerCallContext,
    taskId: string,
    forInject = false,
  ): Promise<{ readonly key: ReminderStoreKey; readonly task: EnteredTask }> {
    // The caller's scope, resolved only once the checks passed (R5).
    const key = this.steps.keyOf(context, taskId);
    const busManager = this.parts.busManager;
    const running = forInject
      ? this.startedByCaller(key, busManager.getByTaskId(taskId, context), true)
      : undefined;
    if (running !== undefined) {
      await this.parts.sweeper.maybeSweep();
      return { key, task: running };
    }
    const task = await this.parts.taskStore.load(taskId, context);
    if (task === undefined || task.id !== taskId) {
      // Not stored yet: its execution may just have published it.
      const unstored = this.startedByCaller(key, busManager.getByTaskId(taskId, context), false);
      // R7: one message and metadata for unknown and foreign tasks alike.
      if (unstored === undefined) {
        throw new ReminderError('TASK_NOT_FOUND', `Task not found: ${taskId}`, {
          metadata: { taskId },
        });
      }
      await this.parts.sweeper.maybeSweep();
      return { key, task: unstored };
    }
    await this.parts.sweeper.maybeSweep();
    await this.parts.taskEnd.endIfTerminal(context, task);
    return { key, task: { status: task.status, fallback: taskFallback(task) } };
  }

  /**
   * The task as the bus of its running execution shows it, for a caller of
   * the scope that started the execution (executor-wrapper.ts): the scope
   * the A2A server stores the task under (R7). An inject takes it without
   * reading the task store, nor copying the task out of it (R65); it also
   * finds a task the server has not stored yet (its execution just published
   * it). Undefined when the bus has shown no status or a terminal one (R29
   * needs the stored task), and with replicas, whose task store other
   * replicas also write (R55). `whileExecuting` (R65): only while an
   * execution runs on the bus, which the A2A server keeps after an
   * interrupted task's execution ended.
   */
  private startedByCaller(
    key: ReminderStoreKey,
    bus: ExecutionEventBus | undefined,
    whileExecuting: boolean,
  ): EnteredTask | undefined {
    if (bus === undefined || this.steps.replicas !== undefined) return undefined;
    const state = this.steps.buses.followed(bus);
    const status = state?.status;
    if (state === undefined || status === undefined || isTerminalState(status.state)) {
      return undefined;
    }
    if (whileExecuting && state.executing === 0) return undefined;
    if (!state.knownCallers.has(storeKeyString(key))) return undefined;
    // The bus's status is used when known (publisher.ts), so no fallback is needed.
    return { status, fallback: NO_FALLBACK };
  }

  /** R30, R32: events of an rpc go to the task's bus if it has one, as it is once committed. */
  private publishToTask(
    context: ServerCallContext,
    key: ReminderStoreKey,
    task: EnteredTask,
    outcome: Committed<unknown>,
  ): Promise<void> | undefined {
    const bus = this.parts.busManager.getByTaskId(key.taskId, context);
    // Listen from now on, so later copies follow the bus's own status (R31).
    if (bus !== undefined) this.steps.buses.stateOf(bus);
    // Most injects displace nothing: no events, nothing to wait for.
    if (outcome.events.length === 0) return undefined;
    return this.steps.deliver(key, bus, task.fallback, outcome);
  }
}

/** What an rpc knows of its task once entered. */
interface EnteredTask {
  readonly status: TaskStatus | undefined;
  readonly fallback: StatusFallback;
}

/**
 * R44: the validated reminder as it is stored, numbers as ProtoJSON reads
 * them back, and provenance rebuilt from its known fields: a binary request
 * may carry unknown fields inside it, which no store keeps alike (R59).
 */
function storable(reminder: TaskReminder | undefined): TaskReminder {
  if (reminder === undefined) throw new ReminderError('INTERNAL', 'internal error');
  const metadata = withoutNegativeZero(reminder.metadata);
  const provenance = reminder.provenance && {
    $typeName: reminder.provenance.$typeName,
    hops: reminder.provenance.hops.map((hop) => ({
      $typeName: hop.$typeName,
      taskId: hop.taskId,
      reminderId: hop.reminderId,
      source: hop.source,
    })),
  };
  if (metadata === reminder.metadata && provenance === undefined) return reminder;
  return { ...reminder, metadata, provenance };
}
