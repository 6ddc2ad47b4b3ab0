import type { LanguageModelV3GenerateResult } from '@ai-sdk/provider';

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** An AI SDK mock model's answer that calls one tool with `input`. */
export function toolCallAnswer(
  toolCallId: string,
  toolName: string,
  input: unknown,
): LanguageModelV3GenerateResult {
  return {
    content: [{ type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) }],
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage,
    warnings: [],
  };
}

/** An AI SDK mock model's answer of plain text, which ends a tool loop. */
export function textAnswer(text: string): LanguageModelV3GenerateResult {
  return {
    content: [{ type: 'text', text }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage,
    warnings: [],
  };
}
