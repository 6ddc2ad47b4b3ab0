/**
 * The task-reminders extension URI (spec R1). Clients activate it with the
 * `A2A-Extensions` service parameter; agents list it in
 * `capabilities.extensions`; reminder events travel under it as the metadata
 * key of A2A status updates.
 */
export const TASK_REMINDERS_EXTENSION_URI =
  'https://a2a-reminders.dev/extensions/task-reminders/v1';

/** ErrorInfo domain of the extension's own error reasons (TASK_TERMINAL, ...). */
export const REMINDERS_ERROR_DOMAIN = 'a2a-reminders.dev';

/** ErrorInfo domain of A2A's own errors (A2A v1.0 §5). */
export const A2A_ERROR_DOMAIN = 'a2a-protocol.org';
