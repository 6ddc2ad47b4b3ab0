// Public API of @a2a-reminders/ai-sdk: task reminders for Vercel AI SDK agents.

export type { ReminderPosition, ReminderSystemMessage } from './reminder-messages.js';
export { AI_SDK_PROMPT_ROLES, reminderSystemMessages, withReminders } from './reminder-messages.js';
export type { ReminderMiddlewareOptions } from './reminder-middleware.js';
export { reminderMiddleware } from './reminder-middleware.js';
export type { ReminderPrepareStepOptions } from './reminder-prepare-step.js';
export { reminderPrepareStep } from './reminder-prepare-step.js';
export type { ReminderTurnSource } from './turn-source.js';
export { reminderTurns } from './turn-source.js';
