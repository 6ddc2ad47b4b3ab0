import type {
  ReminderCallOptions,
  ReminderClient,
  ReminderClientOptions,
} from '@a2a-reminders/core';
import { ReminderError, reminderCallHeaders, statusDetailsFromJson } from '@a2a-reminders/core';
import { TaskReminderService } from '@a2a-reminders/proto';
import type {
  DescMessage,
  DescMethodUnary,
  MessageInitShape,
  MessageShape,
} from '@bufbuild/protobuf';
import { create, fromJson, toJson } from '@bufbuild/protobuf';
import { codeOfJsonRpcError, JSON_RPC_METHOD_NOT_FOUND } from './errors.js';

/**
 * A ReminderClient for the JSON-RPC binding: POSTs to `baseUrl` (the agent's
 * JSON-RPC endpoint) with the rpc name as method and the ProtoJSON request as
 * params, using the global `fetch`.
 */
export function createJsonRpcReminderClient(options: ReminderClientOptions): ReminderClient {
  let nextId = 1;
  async function call<I extends DescMessage, O extends DescMessage>(
    method: DescMethodUnary<I, O>,
    init: MessageInitShape<I>,
    callOptions: ReminderCallOptions = {},
  ): Promise<MessageShape<O>> {
    const params = toJson(method.input, create(method.input, init));
    const headers = reminderCallHeaders(options.headers, callOptions.headers);
    headers.set('Content-Type', 'application/json');
    const signal = callOptions.signal;
    let status: number;
    let text: string;
    try {
      const response = await fetch(options.baseUrl, {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: method.name, params }),
        ...(signal === undefined ? {} : { signal }),
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw new ReminderError(
        'INTERNAL',
        `${method.name}: could not reach ${options.baseUrl}: ${errorText(error)}`,
        { cause: error },
      );
    }
    const envelope = parseJson(text);
    if (!isObject(envelope) || !('result' in envelope || isObject(envelope.error))) {
      throw notJsonRpc(method.name, options.baseUrl, status);
    }
    if (isObject(envelope.error)) throw errorFromEnvelope(method.name, envelope.error, status);
    try {
      return fromJson(method.output, envelope.result as never, { ignoreUnknownFields: true });
    } catch (error) {
      throw new ReminderError('INTERNAL', `${method.name}: malformed result: ${errorText(error)}`, {
        cause: error,
      });
    }
  }

  const rpc = TaskReminderService.method;
  return {
    injectTaskReminder: (request, callOptions) =>
      call(rpc.injectTaskReminder, request, callOptions),
    listTaskReminders: (request, callOptions) => call(rpc.listTaskReminders, request, callOptions),
    cancelTaskReminder: (request, callOptions) =>
      call(rpc.cancelTaskReminder, request, callOptions),
  };
}

/** A JSON-RPC error object back to the ReminderError the server threw. */
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

/** A response that is no JSON-RPC envelope: a proxy page, a 404 from a server without us. */
function notJsonRpc(methodName: string, url: string, httpStatus: number): ReminderError {
  const code = httpStatus === 401 ? 'UNAUTHENTICATED' : noRouteCode(httpStatus);
  return new ReminderError(
    code,
    `${methodName}: ${url} answered HTTP ${httpStatus} without a JSON-RPC response; is it an A2A JSON-RPC endpoint serving the task-reminders extension?`,
  );
}

/** No endpoint or method there (HTTP 404, 405, 501): the server does not serve the rpc. */
function noRouteCode(httpStatus: number): 'UNIMPLEMENTED' | 'INTERNAL' {
  return httpStatus === 404 || httpStatus === 405 || httpStatus === 501
    ? 'UNIMPLEMENTED'
    : 'INTERNAL';
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
