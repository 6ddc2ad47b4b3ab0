import type { Message, Part, Role } from '@a2a-js/sdk';

/** Where a message belongs: `''` for both when it opens a new task. */
export interface MessageScope {
  readonly taskId: string;
  readonly contextId: string;
}

/** A plain-text part, as messages and artifacts carry it. */
export function textPart(text: string): Part {
  return {
    content: { $case: 'text', value: text },
    mediaType: 'text/plain',
    filename: '',
    metadata: undefined,
  };
}

/**
 * An A2A message holding one plain-text part: an agent's status message, or
 * a delegating caller's request. One helper, so no copy of the literal drifts.
 */
export function textMessage(role: Role, scope: MessageScope, text: string): Message {
  return {
    messageId: crypto.randomUUID(),
    contextId: scope.contextId,
    taskId: scope.taskId,
    role,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The text parts of a message, joined by newlines; `''` for none or no message. */
export function messageText(message: Message | undefined): string {
  if (message === undefined) return '';
  return message.parts
    .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
    .filter((t) => t.length > 0)
    .join('\n');
}
