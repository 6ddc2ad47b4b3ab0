import { TASK_REMINDERS_EXTENSION_URI } from './extension-uri.js';

/** The header that activates extensions (A2A v1.0 §3.2.6); compared case-insensitively. */
const EXTENSIONS_HEADER = 'a2a-extensions';

/**
 * The headers of one call, the one rule every binding's client follows (W6):
 * `A2A-Version: 1.0`, then the client's headers, then the call's (later wins,
 * names compared case-insensitively), except `A2A-Extensions`, whose values
 * are all kept, the client's before the call's, whatever the spelling of the
 * name, with the extension URI added once. A list, not a setting: a call that
 * activates one more extension must not switch off the client's, nor ours
 * (the gRPC client once replaced the caller's value and lost the URI).
 */
export function reminderCallHeaders(
  ...sources: ReadonlyArray<Readonly<Record<string, string>> | undefined>
): Headers {
  const headers = new Headers({ 'A2A-Version': '1.0' });
  const extensions: string[] = [];
  for (const source of sources) {
    if (source === undefined) continue;
    for (const [name, value] of Object.entries(source)) {
      if (name.toLowerCase() === EXTENSIONS_HEADER) extensions.push(...extensionList(value));
      else headers.set(name, value);
    }
  }
  extensions.push(TASK_REMINDERS_EXTENSION_URI);
  headers.set(EXTENSIONS_HEADER, [...new Set(extensions)].join(','));
  return headers;
}

/** The URIs of one `A2A-Extensions` value: comma-separated, blanks dropped. */
function extensionList(value: string): string[] {
  return value
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
}
