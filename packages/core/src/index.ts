// Every export here is public API of @a2a-reminders/core: what an agent author or a client
// user needs. What binding packages are built from is in @a2a-reminders/core/protocol.

export type { AgentExtensionSource } from './agent-card.js';
export { reminderAgentExtension, withTaskReminders } from './agent-card.js';
export type { AgentCardFields } from './agent-card-template.js';
export { agentCard } from './agent-card-template.js';
export type { InterfaceUrls } from './agent-interfaces.js';
export { agentInterfaces, findAgentInterface } from './agent-interfaces.js';
export { BatchFreeTaskStore } from './batch-free-task-store.js';
export type { Binding, ProtocolBinding } from './bindings.js';
export {
  A2A_PROTOCOL_VERSION,
  BINDINGS,
  bindingOfProtocol,
  PROTOCOL_BINDING_OF,
} from './bindings.js';
export type { ReminderCallOptions, ReminderClient, ReminderClientOptions } from './client.js';
export { reminderPages } from './client.js';
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
export { InMemoryReminderStore } from './in-memory-store.js';
export { MAX_METADATA_DEPTH } from './json-safety.js';
export type { ReminderLimits } from './limits.js';
export {
  DEFAULT_DISPLACED_EVENT_DELAY_MS,
  DEFAULT_TTL_TURNS,
  defaultReminderLimits,
} from './limits.js';
export { DEFAULT_LIST_PAGE_SIZE, MAX_LIST_PAGE_SIZE } from './list-page.js';
export type { ReminderContent, ReminderFields } from './reminder-content.js';
export { provenanceFromText, provenanceText } from './reminder-content.js';
export type {
  ForwardingClient,
  ForwardRemindersOptions,
  ReminderForwarding,
} from './reminder-forwarding.js';
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
  StoredForward,
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
export { messageText, textMessage, textPart } from './text-message.js';
export {
  MAX_DEDUPE_KEY_CHARS,
  MAX_HOP_TASK_ID_CHARS,
  MAX_ROLE_HINT_CHARS,
  MAX_SOURCE_CHARS,
  REMINDER_ID_PATTERN,
} from './validation.js';
