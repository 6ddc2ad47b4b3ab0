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
    return guard(async () => {
      const taskId = request.taskId;
      const { key, task } = await this.enter(
        context,
        taskId,
        () => injectRequestViolations(request, this.steps.limits, readViolations),
        () => throwIfForwardRefused(request, this.steps.limits),
      );
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
      await this.publishToTask(context, key, task, outcome);
      this.steps.changed(key);
      return outcome.result;
    });
  }

  async listTaskReminders(
    request: ListTaskRemindersRequest,
    context: ServerCallContext,
    readViolations: readonly FieldViolation[] = [],
  ): Promise<ListTaskRemindersResponse> {
    return guard(async () => {
      const { key } = await this.enter(context, request.taskId, () =>
        listRequestViolations(request, readViolations),
      );
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
    });
  }

  async cancelTaskReminder(
    request: CancelTaskReminderRequest,
    context: ServerCallContext,
    readViolations: readonly FieldViolation[] = [],
  ): Promise<CancelTaskReminderResponse> {
    return guard(async () => {
      const { key, task } = await this.enter(context, request.taskId, () =>
        cancelRequestViolations(request, readViolations),
      );
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
    });
  }

  /**
   * R5, R3, R8, R7 in that order: authentication, activation, validation
   * (and, for an inject, R60 and R61), then the task lookup with the
   * caller's own context. A terminal task whose reminders are still live has
   * them ended now (R29).
   */
  private async enter(
    context: ServerCallContext,
    taskId: string,
    violations: () => FieldViolation[],
    forwardChecks?: () => void,
  ): Promise<{ readonly key: ReminderStoreKey; readonly task: EnteredTask }> {
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
    throwIfInvalid(violations());
    forwardChecks?.();
    // The caller's scope, resolved only once the checks above passed (R5).
    const key = this.steps.keyOf(context, taskId);
    const task = await this.parts.taskStore.load(taskId, context);
    if (task === undefined || task.id !== taskId) {
      const running = this.startedByCaller(key, this.parts.busManager.getByTaskId(taskId, context));
      // R7: one message and metadata for unknown and foreign tasks alike.
      if (running === undefined) {
        throw new ReminderError('TASK_NOT_FOUND', `Task not found: ${taskId}`, {
          metadata: { taskId },
        });
      }
      await this.parts.sweeper.maybeSweep();
      return { key, task: running };
    }
    await this.parts.sweeper.maybeSweep();
    await this.parts.taskEnd.endIfTerminal(context, task);
    return { key, task: { status: task.status, fallback: taskFallback(task) } };
  }

  /**
   * A task the A2A server has not stored yet (its execution just published
   * it), as its bus shows it, for the caller that started the execution
   * (executor-wrapper.ts): the same scope the task will be stored under (R7).
   * Not with replicas, whose task store other replicas also write (R55).
   */
  private startedByCaller(
    key: ReminderStoreKey,
    bus: ExecutionEventBus | undefined,
  ): EnteredTask | undefined {
    if (bus === undefined || this.steps.replicas !== undefined) return undefined;
    const state = this.steps.buses.followed(bus);
    const status = state?.status;
    if (state === undefined || status === undefined || isTerminalState(status.state)) {
      return undefined;
    }
    if (!state.knownCallers.has(storeKeyString(key))) return undefined;
    // The bus's status is used when known (publisher.ts), so no fallback is needed.
    return { status, fallback: NO_FALLBACK };
  }

  /** R30, R32: events of an rpc go to the task's bus if it has one, as it is once committed. */
  private async publishToTask(
    context: ServerCallContext,
    key: ReminderStoreKey,
    task: EnteredTask,
    outcome: Committed<unknown>,
  ): Promise<void> {
    const bus = this.parts.busManager.getByTaskId(key.taskId, context);
    // Listen from now on, so later copies follow the bus's own status (R31).
    if (bus !== undefined) this.steps.buses.stateOf(bus);
    await this.steps.deliver(key, bus, task.fallback, outcome);
  }
}

/** What an rpc knows of its task once entered. */
interface EnteredTask {
  readonly status: TaskStatus | undefined;
  readonly fallback: StatusFallback;
}

/** Every rpc throws only ReminderError (ReminderRpcHandler's contract). */
async function guard<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw ReminderError.from(error);
  }
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
