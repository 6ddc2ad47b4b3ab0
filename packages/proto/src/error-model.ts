import { createRegistry } from '@bufbuild/protobuf';
import { file_a2a_reminders_v1_reminders } from './gen/a2a/reminders/v1/reminders_pb.js';
import { file_google_rpc_error_details } from './gen/google/rpc/error_details_pb.js';
import { file_google_rpc_status } from './gen/google/rpc/status_pb.js';

/**
 * Every message type this API can put on the wire, including the google.rpc
 * error details; needed to read and write `google.protobuf.Any` as ProtoJSON
 * (`{"@type": "type.googleapis.com/google.rpc.ErrorInfo", ...}`).
 */
export const reminderTypeRegistry = createRegistry(
  file_a2a_reminders_v1_reminders,
  file_google_rpc_status,
  file_google_rpc_error_details,
);
