// Every export here is public API of @a2a-reminders/proto.

export { reminderTypeRegistry } from './error-model.js';
// Generated protobuf-es code for a2a.reminders.v1 (see proto/).
export * from './gen/a2a/reminders/v1/reminders_pb.js';
// The google.rpc error model every binding puts on the wire (A2A v1.0 §5).
export type {
  BadRequest,
  BadRequest_FieldViolation,
  ErrorInfo,
} from './gen/google/rpc/error_details_pb.js';
export {
  BadRequest_FieldViolationSchema,
  BadRequestSchema,
  ErrorInfoSchema,
} from './gen/google/rpc/error_details_pb.js';
export type { Status } from './gen/google/rpc/status_pb.js';
export { StatusSchema } from './gen/google/rpc/status_pb.js';
export type { HttpBinding, HttpVerb, PathSegment, PathTemplate } from './http-rules.js';
export { httpBindingsOf, parsePathTemplate } from './http-rules.js';
export type { ReminderRpc, ReminderRpcName } from './rpcs.js';
export { findReminderRpc, reminderRpcNames, reminderRpcs } from './rpcs.js';
