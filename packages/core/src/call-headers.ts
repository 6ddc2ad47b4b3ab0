import { TASK_REMINDERS_EXTENSION_URI } from './extension-uri.js';

/**
 * The headers of one call: `A2A-Version: 1.0`, then the client's headers,
 * then the call's (later wins), and always the extension URI in
 * `A2A-Extensions`, kept next to any extensions the caller activates itself.
 */
export function reminderCallHeaders(
  ...sources: ReadonlyArray<Readonly<Record<string, string>> | undefined>
): Headers {
  const headers = new Headers({ 'A2A-Version': '1.0' });
  for (const source of sources) {
    if (source === undefined) continue;
    for (const [name, value] of Object.entries(source)) headers.set(name, value);
  }
  const extensions = (headers.get('A2A-Extensions') ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  if (!extensions.includes(TASK_REMINDERS_EXTENSION_URI)) {
    extensions.push(TASK_REMINDERS_EXTENSION_URI);
  }
  headers.set('A2A-Extensions', extensions.join(','));
  return headers;
}
