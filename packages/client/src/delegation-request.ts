import type { SendMessageRequest } from '@a2a-js/sdk';
import { Role } from '@a2a-js/sdk';
import { textMessage } from '@a2a-reminders/core';

/**
 * The request that opens a new task with one user message of plain text.
 * `returnImmediately` (default true) makes SendMessage return the task at
 * once, to be followed with SubscribeToTask; SendStreamingMessage streams the
 * task from the start either way.
 */
export function delegationRequest(
  text: string,
  options: { readonly returnImmediately?: boolean } = {},
): SendMessageRequest {
  return {
    tenant: '',
    message: textMessage(Role.ROLE_USER, { taskId: '', contextId: '' }, text),
    configuration: {
      acceptedOutputModes: ['text/plain'],
      taskPushNotificationConfig: undefined,
      returnImmediately: options.returnImmediately ?? true,
    },
    metadata: undefined,
  };
}
