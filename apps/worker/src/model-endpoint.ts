import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { ModelEndpoint } from './cli-args.js';

/**
 * The language model of an OpenAI-compatible endpoint (`--model-url`,
 * `--model`): chat completions with tool calls, as hosted providers and
 * local servers (Ollama, vLLM, llama.cpp) serve them. `apiKey` is sent as a
 * bearer token when given; local servers need none.
 */
export function endpointModel(
  endpoint: ModelEndpoint,
  apiKey: string | undefined,
): LanguageModelV3 {
  const provider = createOpenAICompatible({
    name: 'model-endpoint',
    baseURL: endpoint.url,
    ...(apiKey === undefined || apiKey === '' ? {} : { apiKey }),
  });
  return provider.chatModel(endpoint.model);
}
