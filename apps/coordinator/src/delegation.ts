import type { SendMessageRequest } from '@a2a-js/sdk';
import { Role } from '@a2a-js/sdk';
import { textMessage } from '@a2a-reminders/core';

/**
 * The request that delegates a coding task: one user message of plain text,
 * opening a new task. SendMessage returns at once with the task
 * (`returnImmediately`), to be followed with SubscribeToTask;
 * SendStreamingMessage streams it from the start either way.
 */
export function delegationRequest(text: string): SendMessageRequest {
  return {
    tenant: '',
    message: textMessage(Role.ROLE_USER, { taskId: '', contextId: '' }, text),
    configuration: {
      acceptedOutputModes: ['text/plain'],
      taskPushNotificationConfig: undefined,
      returnImmediately: true,
    },
    metadata: undefined,
  };
}
