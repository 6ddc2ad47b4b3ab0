import type { RequestOptions } from '@a2a-js/sdk/client';
import { reminderCallHeaders } from '@a2a-reminders/core/protocol';

/**
 * Options for a stock SDK call made by a caller that understands the
 * reminders extension: the given headers as service parameters, and the
 * extension activated in `A2A-Extensions` (A2A v1.0 §3.2.6) by the rule the
 * reminder clients follow (W6: the caller's extensions kept, ours added once).
 */
export function reminderRequestOptions(
  headers?: Readonly<Record<string, string>>,
  signal?: AbortSignal,
): RequestOptions {
  const parameters = reminderCallHeaders(headers);
  // The SDK client sets A2A-Version from the interface it negotiated.
  parameters.delete('a2a-version');
  return {
    serviceParameters: Object.fromEntries(parameters),
    ...(signal === undefined ? {} : { signal }),
  };
}
