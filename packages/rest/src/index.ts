// Every export here is public API of @a2a-reminders/rest.

export { createRestReminderClient } from './rest-client.js';
export { restFallback } from './rest-fallback.js';
export type { RestHandlerWithRemindersOptions, RestReminderRouterOptions } from './rest-router.js';
export {
  DEFAULT_MAX_BODY_BYTES,
  restHandlerWithReminders,
  restReminderRouter,
} from './rest-router.js';
