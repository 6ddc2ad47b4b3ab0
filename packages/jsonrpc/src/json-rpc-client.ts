import type { ReminderClient, ReminderClientOptions } from '@a2a-reminders/core';
import { ReminderError } from '@a2a-reminders/core';
import {
  codeOfBareHttpStatus,
  codeOfJsonRpcError,
  fetchJson,
  isJsonObject,
  JSON_RPC_METHOD_NOT_FOUND,
  reminderCallHeaders,
  reminderClientOf,
  responseFromJson,
  statusDetailsFromJson,
} from '@a2a-reminders/core/protocol';
import { create, toJson } from '@bufbuild/protobuf';

/**
 * A ReminderClient for the JSON-RPC binding: POSTs to `baseUrl` (the agent's
 * JSON-RPC endpoint) with the rpc name as method and the ProtoJSON request as
 * params, using the global `fetch`.
 */
export function createJsonRpcReminderClient(options: ReminderClientOptions): ReminderClient {
  let nextId = 1;
  return reminderClientOf(async (method, init, callOptions) => {
    const params = toJson(method.input, create(method.input, init));
    const headers = reminderCallHeaders(options.headers, callOptions?.headers);
    headers.set('Content-Type', 'application/json');
    const { status, json } = await fetchJson(method.name, options.baseUrl, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: method.name, params }),
      signal: callOptions?.signal,
    });
    if (!isJsonObject(json) || !('result' in json || isJsonObject(json.error))) {
      // No JSON-RPC envelope: a proxy page, a 404 from a server without us.
      throw new ReminderError(
        codeOfBareHttpStatus(status),
        `${method.name}: ${options.baseUrl} answered HTTP ${status} without a JSON-RPC response; is it an A2A JSON-RPC endpoint serving the task-reminders extension?`,
      );
    }
    if (isJsonObject(json.error)) throw errorFromEnvelope(method.name, json.error, status);
    return responseFromJson(method.output, json.result, method.name, 'result');
  });
}

/** A JSON-RPC error object back to the ReminderError the server threw (R40). */
function errorFromEnvelope(
  methodName: string,
  error: Record<string, unknown>,
  httpStatus: number,
): ReminderError {
  const message = typeof error.message === 'string' ? error.message : 'JSON-RPC error';
  const code = typeof error.code === 'number' ? error.code : 0;
  const fromDetails = ReminderError.fromStatusDetails(message, statusDetailsFromJson(error.data));
  if (fromDetails !== undefined) return fromDetails;
  if (code === JSON_RPC_METHOD_NOT_FOUND) {
    return new ReminderError(
      'UNIMPLEMENTED',
      `${methodName}: the server does not serve the task-reminders extension (${message})`,
    );
  }
  return new ReminderError(codeOfJsonRpcError(code, httpStatus), message);
}
