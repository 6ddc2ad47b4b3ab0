// Every export here is public API of @a2a-reminders/rest.

export { createRestReminderClient } from './rest-client.js';
export { restFallback } from './rest-fallback.js';
export type { RestReminderRouterOptions } from './rest-router.js';
export { DEFAULT_MAX_BODY_BYTES, restReminderRouter } from './rest-router.js';
