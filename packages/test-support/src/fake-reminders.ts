import type { ServerCallContext } from '@a2a-js/sdk/server';
import type { FieldViolation, ReminderRpcHandler } from '@a2a-reminders/core';
import { ReminderError } from '@a2a-reminders/core';
import type {
  CancelTaskReminderRequest,
  InjectTaskReminderRequest,
  ListTaskRemindersRequest,
} from '@a2a-reminders/proto';
import {
  CancelTaskReminderResponseSchema,
  InjectTaskReminderResponseSchema,
  ListTaskRemindersResponseSchema,
  ReminderState,
} from '@a2a-reminders/proto';
import { create } from '@bufbuild/protobuf';

export interface RecordedCall {
  readonly method: string;
  readonly request:
    | InjectTaskReminderRequest
    | ListTaskRemindersRequest
    | CancelTaskReminderRequest;
  readonly tenant: string | undefined;
  readonly userName: string | undefined;
  readonly requestedExtensions: readonly string[];
}

/**
 * A ReminderRpcHandler that records each call and answers with a fixed
 * record, or throws `fail` when set; it activates the extension like core,
 * and like core refuses, unrecorded, a request the binding could not read
 * in full (R45).
 */
export function fakeReminders(extensionUri: string) {
  const calls: RecordedCall[] = [];
  const state: { fail: unknown } = { fail: undefined };
  const record = (
    method: string,
    request: RecordedCall['request'],
    context: ServerCallContext,
    readViolations: readonly FieldViolation[] = [],
  ): void => {
    if (readViolations.length > 0) {
      context.addActivatedExtension(extensionUri);
      throw ReminderError.invalidArgument(readViolations);
    }
    calls.push({
      method,
      request,
      tenant: context.tenant,
      userName: context.user?.userName,
      requestedExtensions: [...(context.requestedExtensions ?? [])],
    });
    context.addActivatedExtension(extensionUri);
    if (state.fail !== undefined) throw state.fail;
  };
  const handler: ReminderRpcHandler = {
    async injectTaskReminder(request, context, readViolations) {
      record('injectTaskReminder', request, context, readViolations);
      return create(InjectTaskReminderResponseSchema, {
        record: {
          taskId: request.taskId,
          state: ReminderState.PENDING,
          ...(request.reminder === undefined ? {} : { reminder: request.reminder }),
        },
        taskState: 'TASK_STATE_WORKING',
      });
    },
    async listTaskReminders(request, context, readViolations) {
      record('listTaskReminders', request, context, readViolations);
      return create(ListTaskRemindersResponseSchema, {
        reminders: [{ taskId: request.taskId, state: ReminderState.ACTIVE }],
      });
    },
    async cancelTaskReminder(request, context, readViolations) {
      record('cancelTaskReminder', request, context, readViolations);
      return create(CancelTaskReminderResponseSchema, {
        record: { taskId: request.taskId, state: ReminderState.CANCELLED },
      });
    },
  };
  return { handler, calls, state };
}

/** One ReminderError per code, with metadata and (where meaningful) field violations. */
export function sampleError(code: ReminderError['code']): ReminderError {
  const fieldViolations =
    code === 'INVALID_ARGUMENT' || code === 'REMINDER_ID_CONFLICT'
      ? [{ field: 'reminder.ttlTurns', description: 'must be between 1 and 20' }]
      : [];
  return new ReminderError(code, `sample ${code}`, {
    metadata: { taskId: 'task-1' },
    fieldViolations,
  });
}
