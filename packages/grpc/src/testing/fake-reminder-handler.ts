import type { ServerCallContext } from '@a2a-js/sdk/server';
import type { ReminderRpcHandler } from '@a2a-reminders/core';
import { TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import {
  CancelTaskReminderResponseSchema,
  InjectTaskReminderResponseSchema,
  ListTaskRemindersResponseSchema,
  ReminderState,
} from '@a2a-reminders/proto';
import type { Message } from '@bufbuild/protobuf';
import { create } from '@bufbuild/protobuf';

export interface RecordedCall {
  readonly method: keyof ReminderRpcHandler;
  readonly request: Message;
  readonly context: ServerCallContext;
}

/** A ReminderRpcHandler that records its calls, activates the extension and can be told to fail. */
export class FakeReminderHandler implements ReminderRpcHandler {
  readonly calls: RecordedCall[] = [];
  /** Thrown by the next calls while set. */
  failWith: unknown;

  private record(method: keyof ReminderRpcHandler, request: Message, context: ServerCallContext) {
    this.calls.push({ method, request, context });
    if (this.failWith !== undefined) throw this.failWith;
    if (context.requestedExtensions?.includes(TASK_REMINDERS_EXTENSION_URI)) {
      context.addActivatedExtension(TASK_REMINDERS_EXTENSION_URI);
    }
  }

  async injectTaskReminder(
    request: Parameters<ReminderRpcHandler['injectTaskReminder']>[0],
    context: ServerCallContext,
  ) {
    this.record('injectTaskReminder', request, context);
    return create(InjectTaskReminderResponseSchema, {
      record: {
        taskId: request.taskId,
        reminder: {
          id: request.reminder?.id ?? '',
          body: request.reminder?.body ?? '',
          ttlTurns: request.reminder?.ttlTurns ?? 1,
        },
        state: ReminderState.PENDING,
      },
      taskState: 'TASK_STATE_WORKING',
    });
  }

  async listTaskReminders(
    request: Parameters<ReminderRpcHandler['listTaskReminders']>[0],
    context: ServerCallContext,
  ) {
    this.record('listTaskReminders', request, context);
    return create(ListTaskRemindersResponseSchema, {
      reminders: [{ taskId: request.taskId, state: ReminderState.ACTIVE }],
    });
  }

  async cancelTaskReminder(
    request: Parameters<ReminderRpcHandler['cancelTaskReminder']>[0],
    context: ServerCallContext,
  ) {
    this.record('cancelTaskReminder', request, context);
    return create(CancelTaskReminderResponseSchema, {
      record: {
        taskId: request.taskId,
        reminder: { id: request.reminderId },
        state: ReminderState.CANCELLED,
      },
    });
  }
}
