import { TaskReminderService } from '@a2a-reminders/proto';
import type {
  DescMessage,
  DescMethodUnary,
  MessageInitShape,
  MessageShape,
} from '@bufbuild/protobuf';
import { fromJson } from '@bufbuild/protobuf';
import type { ReminderCallOptions, ReminderClient } from './client.js';
import type { ReminderErrorCode } from './errors.js';
import { ReminderError } from './errors.js';

/** One unary rpc as a binding's client performs it. */
export type ReminderUnaryCall = <I extends DescMessage, O extends DescMessage>(
  method: DescMethodUnary<I, O>,
  init: MessageInitShape<I>,
  options: ReminderCallOptions | undefined,
) => Promise<MessageShape<O>>;

/** The ReminderClient whose every method is `call` with the rpc's descriptor. */
export function reminderClientOf(call: ReminderUnaryCall): ReminderClient {
  const rpc = TaskReminderService.method;
  return {
    injectTaskReminder: (request, options) => call(rpc.injectTaskReminder, request, options),
    listTaskReminders: (request, options) => call(rpc.listTaskReminders, request, options),
    cancelTaskReminder: (request, options) => call(rpc.cancelTaskReminder, request, options),
  };
}

/** What an HTTP server answered: its status and its body as JSON (`undefined` when it is none). */
export interface HttpAnswer {
  readonly status: number;
  readonly json: unknown;
}

export interface HttpRequest {
  readonly method: string;
  readonly headers: Headers;
  readonly body?: string;
  readonly signal?: AbortSignal | undefined;
}

/**
 * One HTTP exchange of a reminder client over the global `fetch`. An aborted
 * call rejects with the signal's reason (W9); a server that cannot be reached
 * is INTERNAL naming the URL and the cause (a refused connection, a DNS
 * failure), which `fetch` keeps out of its own message.
 */
export async function fetchJson(
  rpcName: string,
  url: string,
  request: HttpRequest,
): Promise<HttpAnswer> {
  const { signal, body } = request;
  let status: number;
  let text: string;
  try {
    const response = await fetch(url, {
      method: request.method,
      headers: request.headers,
      ...(body === undefined ? {} : { body }),
      ...(signal === undefined ? {} : { signal }),
    });
    status = response.status;
    text = await response.text();
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw new ReminderError('INTERNAL', `${rpcName}: could not reach ${url}: ${causeText(error)}`, {
      cause: error,
    });
  }
  return { status, json: parseJson(text) };
}

/** The response message from its ProtoJSON; INTERNAL when it is not one (`what` names the part). */
export function responseFromJson<O extends DescMessage>(
  schema: O,
  json: unknown,
  rpcName: string,
  what: string,
): MessageShape<O> {
  try {
    return fromJson(schema, json as never, { ignoreUnknownFields: true });
  } catch (error) {
    throw new ReminderError('INTERNAL', `${rpcName}: malformed ${what}: ${errorText(error)}`, {
      cause: error,
    });
  }
}

/**
 * The code of an HTTP answer that carries no error in the binding's shape
 * (R39): a plain 401 from auth middleware is UNAUTHENTICATED; no endpoint or
 * method there (404, 405, 501) means an agent without the extension,
 * UNIMPLEMENTED; anything else (a proxy's page) INTERNAL.
 */
export function codeOfBareHttpStatus(httpStatus: number): ReminderErrorCode {
  if (httpStatus === 401) return 'UNAUTHENTICATED';
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

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `fetch failed (connect ECONNREFUSED 127.0.0.1:9)`: undici keeps the reason in `cause`. */
function causeText(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  return cause instanceof Error ? `${errorText(error)} (${cause.message})` : errorText(error);
}
