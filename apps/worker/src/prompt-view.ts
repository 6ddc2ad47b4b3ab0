import { stepKindOfTool } from './coding-tools.js';
import type { ChatMessage, ChatRole } from './model.js';

/**
 * A prompt message as both AI SDK prompt formats write it (the loop's
 * ModelMessage and the provider prompt a language model receives): a role
 * and either text or typed parts.
 */
export interface PromptMessageLike {
  readonly role: string;
  readonly content: string | ReadonlyArray<PromptPartLike>;
}

interface PromptPartLike {
  readonly type: string;
  readonly text?: string;
  readonly toolName?: string;
  readonly input?: unknown;
  readonly output?: unknown;
}

/**
 * The worker's reading of prompt messages: text for each, a step tool call
 * as `kind: summary` (the loop's working memory), a tool result as its text.
 * `origin` is told by `originOf`.
 */
export function chatMessagesOf(
  messages: readonly PromptMessageLike[],
  originOf: (message: PromptMessageLike, index: number) => ChatMessage['origin'],
): ChatMessage[] {
  return messages.map((m, i) => ({
    role: roleOf(m.role),
    content: contentOf(m),
    origin: originOf(m, i),
  }));
}

function roleOf(role: string): ChatRole {
  return role === 'system' || role === 'user' || role === 'assistant' || role === 'tool'
    ? role
    : 'system';
}

function contentOf(message: PromptMessageLike): string {
  if (typeof message.content === 'string') return message.content;
  return message.content.map(partText).join('\n');
}

function partText(part: PromptPartLike): string {
  if (part.type === 'text') return part.text ?? '';
  if (part.type === 'tool-call') {
    const kind = stepKindOfTool(part.toolName ?? '') ?? part.toolName;
    return `${kind}: ${summaryOf(part.input)}`;
  }
  if (part.type === 'tool-result') return outputText(part.output);
  return '';
}

/** A step tool's input as the model wrote it: an object, or (in some prompts) its JSON. */
function summaryOf(input: unknown): string {
  const value = typeof input === 'string' ? safeParse(input) : input;
  if (typeof value === 'object' && value !== null && 'summary' in value) {
    const summary = (value as { summary: unknown }).summary;
    if (typeof summary === 'string') return summary;
  }
  return JSON.stringify(value ?? null);
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function outputText(output: unknown): string {
  if (typeof output === 'object' && output !== null && 'value' in output) {
    const value = (output as { value: unknown }).value;
    return typeof value === 'string' ? value : JSON.stringify(value);
  }
  return JSON.stringify(output ?? null);
}
