// Every export here is public API of @a2a-reminders/grpc.

export { reminderErrorFromConnectError } from './connect-error-to-reminder-error.js';
export type { GrpcReminderClient } from './grpc-reminder-client.js';
export { createGrpcReminderClient } from './grpc-reminder-client.js';
export type { GrpcReminderServiceOptions } from './grpc-reminder-service.js';
export { DEFAULT_MAX_REQUEST_BYTES, grpcReminderService } from './grpc-reminder-service.js';
export { addReminderReflection, type ReminderReflectionOptions } from './reflection.js';
export { GRPC_STATUS_DETAILS_BIN } from './status-details-bin.js';
export type {
  ReminderMethodDefinition,
  ReminderMethodName,
  ReminderRequest,
} from './task-reminder-service-definition.js';
export {
  EncodedRequest,
  TaskReminderServiceDefinition,
} from './task-reminder-service-definition.js';
