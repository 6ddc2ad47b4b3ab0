import { BENCH_BODY } from './inject-request.js';

/** A seeded WORKING task a follow-up SendMessage addresses. */
export interface TaskRef {
  readonly id: string;
  readonly contextId: string;
}

/** The text the proposal's workaround sends as a user message. */
export const SEND_REMINDER_TEXT = `System reminder: ${BENCH_BODY}`;

/**
 * The workaround's SendMessageRequest as ProtoJSON: a user message on the
 * running task (taskId + contextId) that returns as soon as the agent
 * acknowledged it. The client asks for no history back (historyLength 0): a
 * reminder sender has no use for the transcript, and the workaround is
 * measured at its cheapest, so the Inject ≥ 1.5× goal is not won against a
 * response that grows with the task. What still grows is the stored history,
 * one message per follow-up: the workaround's real cost.
 */
export function sendReminderJson(task: TaskRef, messageId: string) {
  return {
    message: {
      messageId,
      role: 'ROLE_USER',
      taskId: task.id,
      contextId: task.contextId,
      parts: [{ text: SEND_REMINDER_TEXT }],
    },
    configuration: { returnImmediately: true, historyLength: 0 },
  };
}
