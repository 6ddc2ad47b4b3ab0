// Every export here is public API of @a2a-reminders/jsonrpc.

export { createJsonRpcReminderClient } from './json-rpc-client.js';
export { jsonRpcFallback } from './json-rpc-fallback.js';
export type {
  JsonRpcHandlerWithRemindersOptions,
  JsonRpcReminderHandlerOptions,
} from './json-rpc-handler.js';
export {
  DEFAULT_MAX_BODY_BYTES,
  jsonRpcHandlerWithReminders,
  jsonRpcReminderHandler,
  SDK_JSON_LIMIT_BYTES,
} from './json-rpc-handler.js';
