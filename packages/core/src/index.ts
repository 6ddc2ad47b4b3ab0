// Every export here is public API of @a2a-reminders/core.

export type { AgentExtensionSource } from './agent-card.js';
export { reminderAgentExtension, withTaskReminders } from './agent-card.js';
export type { BuildCallContextOptions, ReminderBinding } from './call-context.js';
export { buildCallContext } from './call-context.js';
export { reminderCallHeaders } from './call-headers.js';
export type { ReminderCallOptions, ReminderClient, ReminderClientOptions } from './client.js';
export { reminderPages } from './client.js';
export { callReminderRpc } from './dispatch.js';
export type { FieldViolation, ReminderErrorCode, ReminderErrorOptions } from './errors.js';
export { a2aReasonOf, isReminderErrorCode, ReminderError, reminderErrorCodes } from './errors.js';
export { REMINDER_EVENT_KINDS } from './events.js';
export {
  A2A_ERROR_DOMAIN,
  REMINDERS_ERROR_DOMAIN,
  TASK_REMINDERS_EXTENSION_URI,
} from './extension-uri.js';
export type { FramingTag } from './framing.js';
export { escapeAttribute, findFramingTags, foldCodePoint } from './framing.js';
export type { HttpFailure } from './http-failure.js';
export { httpFailureOf } from './http-failure.js';
export { InMemoryReminderStore } from './in-memory-store.js';
export { MAX_METADATA_DEPTH } from './json-safety.js';
export type { ReminderLimits } from './limits.js';
export { DEFAULT_TTL_TURNS, defaultReminderLimits } from './limits.js';
export { DEFAULT_LIST_PAGE_SIZE, MAX_LIST_PAGE_SIZE } from './list-page.js';
export { readRequestBinary } from './protobinary.js';
export { parseRequestJson, readRequestJson, toResponseJson } from './protojson.js';
export type { ReadRequest } from './read-request.js';
export { createReminderService } from './reminder-service.js';
export { isReminderUpdate } from './reminder-update.js';
export type { ChatMessage, ChatRenderOptions, RenderableReminder } from './render.js';
export {
  FALLBACK_REMINDER_ROLES,
  FORBIDDEN_REMINDER_ROLES,
  neutralizeFraming,
  REMINDER_TAG,
  reminderRole,
  renderReminderBlock,
  renderReminderBlocks,
  renderReminderMessages,
  UNKNOWN_SOURCE,
} from './render.js';
export type {
  ReminderRpcHandler,
  ReminderService,
  ReminderServiceOptions,
  ReminderTurn,
  SurfacedReminder,
} from './service.js';
export { statusDetailsFromJson, statusDetailsToJson } from './status-details-json.js';
export type {
  LoggedEventBatch,
  ReminderAcceptance,
  ReminderChangeSignal,
  ReminderEventLog,
  ReminderPage,
  ReminderPageQuery,
  ReminderStore,
  ReminderStoreKey,
  ReminderTaskSnapshot,
  ReminderTransaction,
  ReminderWrite,
  StoredReminder,
  StoredReminderState,
  TaskEndMark,
} from './store.js';
export { isLiveState, storeKeyString } from './store.js';
export { reminderBatchOf, reminderEventsOf } from './stream-events.js';
export {
  ACCEPTING_STATES,
  HOLDING_STATES,
  isTerminalState,
  TERMINAL_STATES,
  taskStateName,
} from './task-states.js';
export type { MessageScope } from './text-message.js';
export { messageText, textMessage } from './text-message.js';
export {
  MAX_DEDUPE_KEY_CHARS,
  MAX_ROLE_HINT_CHARS,
  MAX_SOURCE_CHARS,
  REMINDER_ID_PATTERN,
} from './validation.js';
