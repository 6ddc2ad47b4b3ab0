import type {
  ReminderCallOptions,
  ReminderClient,
  ReminderClientOptions,
} from '@a2a-reminders/core';
import { ReminderError, reminderCallHeaders, statusDetailsFromJson } from '@a2a-reminders/core';
import type { HttpBinding } from '@a2a-reminders/proto';
import { findReminderRpc, TaskReminderService } from '@a2a-reminders/proto';
import type {
  DescMessage,
  DescMethodUnary,
  JsonObject,
  MessageInitShape,
  MessageShape,
} from '@bufbuild/protobuf';
import { create, fromJson, toJson } from '@bufbuild/protobuf';
import { codeOfRestError } from './errors.js';
import { boundFields, expandPathTemplate } from './path-template.js';

/**
 * A ReminderClient for the HTTP+JSON binding: builds each call from the
 * rpc's `google.api.http` rule against `baseUrl` (the agent's HTTP+JSON
 * interface URL), using the global `fetch`. A request with a tenant uses the
 * `/{tenant}/…` form.
 */
export function createRestReminderClient(options: ReminderClientOptions): ReminderClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');

  async function call<I extends DescMessage, O extends DescMessage>(
    method: DescMethodUnary<I, O>,
    init: MessageInitShape<I>,
    callOptions: ReminderCallOptions = {},
  ): Promise<MessageShape<O>> {
    const rpc = findReminderRpc(method.name);
    if (rpc === undefined) throw new ReminderError('INTERNAL', `unknown rpc ${method.name}`);
    const json = toJson(method.input, create(method.input, init)) as JsonObject;
    const { binding, path } = pickBinding(rpc.http, json, method.name);
    const rest: JsonObject = { ...json };
    for (const field of boundFields(binding.path)) delete rest[field];

    const headers = reminderCallHeaders(options.headers, callOptions.headers);
    let url = `${baseUrl}${path}`;
    let body: string | undefined;
    if (binding.body === '') {
      const query = new URLSearchParams();
      for (const [name, value] of Object.entries(rest)) {
        if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
          query.set(name, String(value));
        }
      }
      if (query.size > 0) url += `?${query.toString()}`;
    } else {
      body = JSON.stringify(rest);
      headers.set('Content-Type', 'application/json');
    }

    const signal = callOptions.signal;
    let status: number;
    let text: string;
    try {
      const response = await fetch(url, {
        method: binding.verb.toUpperCase(),
        headers,
        ...(body === undefined ? {} : { body }),
        ...(signal === undefined ? {} : { signal }),
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw new ReminderError(
        'INTERNAL',
        `${method.name}: could not reach ${url}: ${errorText(error)}`,
        {
          cause: error,
        },
      );
    }
    const parsed = parseJson(text);
    if (status >= 200 && status < 300) {
      try {
        return fromJson(method.output, parsed as never, { ignoreUnknownFields: true });
      } catch (error) {
        throw new ReminderError(
          'INTERNAL',
          `${method.name}: malformed response: ${errorText(error)}`,
          {
            cause: error,
          },
        );
      }
    }
    throw errorFromStatusBody(method.name, url, status, parsed);
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

/**
 * The first HTTP rule whose variables the request fills; with a tenant, the
 * first one that carries the tenant in its path.
 */
function pickBinding(
  bindings: readonly HttpBinding[],
  json: JsonObject,
  rpcName: string,
): { binding: HttpBinding; path: string } {
  const hasTenant = typeof json.tenant === 'string' && json.tenant !== '';
  const ordered = hasTenant
    ? [
        ...bindings.filter((b) => boundFields(b.path).includes('tenant')),
        ...bindings.filter((b) => !boundFields(b.path).includes('tenant')),
      ]
    : bindings.filter((b) => !boundFields(b.path).includes('tenant'));
  for (const binding of ordered) {
    const path = expandPathTemplate(binding.path, json);
    if (path !== undefined) return { binding, path };
  }
  const needed = boundFields(bindings[0]?.path ?? { source: '', segments: [], verb: undefined });
  throw ReminderError.invalidArgument(
    needed
      .filter((f) => f !== 'tenant' && (typeof json[f] !== 'string' || json[f] === ''))
      .map((field) => ({ field, description: `is required (part of the ${rpcName} URL path)` })),
  );
}

/** A `google.rpc.Status` error body back to the ReminderError the server threw. */
function errorFromStatusBody(
  rpcName: string,
  url: string,
  httpStatus: number,
  parsed: unknown,
): ReminderError {
  const error = isObject(parsed) && isObject(parsed.error) ? parsed.error : undefined;
  if (error === undefined) {
    // Not an A2A error body: a proxy page, or no such route on a server without the extension.
    return new ReminderError(
      httpStatus === 401
        ? 'UNAUTHENTICATED'
        : httpStatus === 404 || httpStatus === 405 || httpStatus === 501
          ? 'UNIMPLEMENTED'
          : 'INTERNAL',
      `${rpcName}: ${url} answered HTTP ${httpStatus} without a google.rpc.Status body; does it serve the task-reminders extension?`,
    );
  }
  const message = typeof error.message === 'string' ? error.message : `HTTP ${httpStatus}`;
  const fromDetails = ReminderError.fromStatusDetails(
    message,
    statusDetailsFromJson(error.details),
  );
  if (fromDetails !== undefined) return fromDetails;
  const status = typeof error.status === 'string' ? error.status : undefined;
  return new ReminderError(codeOfRestError(httpStatus, status), message);
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
