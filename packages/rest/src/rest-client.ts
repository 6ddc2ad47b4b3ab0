import type { ReminderClient, ReminderClientOptions } from '@a2a-reminders/core';
import { ReminderError } from '@a2a-reminders/core';
import {
  codeOfBareHttpStatus,
  codeOfRestError,
  fetchJson,
  isJsonObject,
  reminderCallHeaders,
  reminderClientOf,
  responseFromJson,
  statusDetailsFromJson,
} from '@a2a-reminders/core/protocol';
import type { HttpBinding } from '@a2a-reminders/proto';
import { findReminderRpc } from '@a2a-reminders/proto';
import type { JsonObject } from '@bufbuild/protobuf';
import { create, toJson } from '@bufbuild/protobuf';
import { boundFields, expandPathTemplate } from './path-template.js';

/**
 * A ReminderClient for the HTTP+JSON binding: builds each call from the
 * rpc's `google.api.http` rule against `baseUrl` (the agent's HTTP+JSON
 * interface URL), using the global `fetch`. A request with a tenant uses the
 * `/{tenant}/…` form. Fields the path carries stay out of the body and query.
 */
export function createRestReminderClient(options: ReminderClientOptions): ReminderClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  return reminderClientOf(async (method, init, callOptions) => {
    const rpc = findReminderRpc(method.name);
    if (rpc === undefined) throw new ReminderError('INTERNAL', `unknown rpc ${method.name}`);
    const json = toJson(method.input, create(method.input, init)) as JsonObject;
    const { binding, path } = pickBinding(rpc.http, json, method.name);
    const rest: JsonObject = { ...json };
    for (const field of boundFields(binding.path)) delete rest[field];

    const headers = reminderCallHeaders(options.headers, callOptions?.headers);
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

    const answer = await fetchJson(method.name, url, {
      method: binding.verb.toUpperCase(),
      headers,
      ...(body === undefined ? {} : { body }),
      signal: callOptions?.signal,
    });
    if (answer.status >= 200 && answer.status < 300) {
      return responseFromJson(method.output, answer.json, method.name, 'response');
    }
    throw errorFromStatusBody(method.name, url, answer.status, answer.json);
  });
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

/** A `google.rpc.Status` error body back to the ReminderError the server threw (R40). */
function errorFromStatusBody(
  rpcName: string,
  url: string,
  httpStatus: number,
  parsed: unknown,
): ReminderError {
  const error = isJsonObject(parsed) && isJsonObject(parsed.error) ? parsed.error : undefined;
  if (error === undefined) {
    // Not an A2A error body: a proxy page, or no such route on a server without the extension.
    return new ReminderError(
      codeOfBareHttpStatus(httpStatus),
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
