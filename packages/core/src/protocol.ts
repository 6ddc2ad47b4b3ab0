// @a2a-reminders/core/protocol: what binding packages are built from. Agent
// authors and client users need none of it; they use the main entry point.
// Every export here is public API of the subpath, for binding authors.

export type { BuildCallContextOptions } from './call-context.js';
export { buildCallContext } from './call-context.js';
export { reminderCallHeaders } from './call-headers.js';
export { callReminderRpc } from './dispatch.js';
export type { HttpAnswer, HttpRequest, ReminderUnaryCall } from './http-client.js';
export {
  codeOfBareHttpStatus,
  fetchJson,
  reminderClientOf,
  responseFromJson,
} from './http-client.js';
export type { HttpFailure } from './http-failure.js';
export { httpFailureOf, isBodyTooLarge } from './http-failure.js';
export type { HttpCallOutcome, JsonResponse } from './http-reply.js';
export { echoExtensions, runHttpReminderCall, sendEmpty, sendJson } from './http-reply.js';
export type { BodyMiddleware, JsonBodyOptions, JsonBodySource } from './json-body.js';
export { jsonBodyReader } from './json-body.js';
export { toMessageBinary } from './message-binary.js';
export { readRequestBinary } from './protobinary.js';
export { isJsonObject, parseRequestJson, readRequestJson, toResponseJson } from './protojson.js';
export type { ReadRequest } from './read-request.js';
export type { ReminderBindingOptions, ReminderCall, ReminderCallOutcome } from './reminder-call.js';
export { DEFAULT_MAX_REQUEST_BYTES, runReminderCall } from './reminder-call.js';
export { statusDetailsFromJson, statusDetailsToJson } from './status-details-json.js';
export type { ReminderErrorWire, RpcCodeName, RpcCodeNumber } from './wire-errors.js';
export {
  codeOfGrpcStatus,
  codeOfJsonRpcError,
  codeOfRestError,
  JSON_RPC_INTERNAL_ERROR,
  JSON_RPC_INVALID_PARAMS,
  JSON_RPC_INVALID_REQUEST,
  JSON_RPC_METHOD_NOT_FOUND,
  JSON_RPC_PARSE_ERROR,
  RpcCode,
  reminderErrorWire,
  rpcCodeName,
} from './wire-errors.js';
