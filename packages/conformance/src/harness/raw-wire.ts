import { TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';
import { GRPC_STATUS_DETAILS_BIN } from '@a2a-reminders/grpc';
import type { Status } from '@a2a-reminders/proto';
import { findReminderRpc, reminderTypeRegistry, StatusSchema } from '@a2a-reminders/proto';
import type { DescMessage, JsonValue, MessageInitShape } from '@bufbuild/protobuf';
import { create, fromBinary, toBinary, toJson } from '@bufbuild/protobuf';
import * as grpc from '@grpc/grpc-js';
import type { ExchangeLog } from './exchange-log.js';

/** The headers a 1.0 client that activates the extension sends. */
export const ACTIVATED_HEADERS: Readonly<Record<string, string>> = {
  'A2A-Version': '1.0',
  'A2A-Extensions': TASK_REMINDERS_EXTENSION_URI,
};

export interface HttpAnswer {
  readonly status: number;
  readonly headers: Headers;
  /** The raw body, for byte-for-byte comparisons. */
  readonly text: string;
  readonly json: Record<string, unknown>;
}

/**
 * Where a wire's raw requests go: the interface URLs the agent's card lists
 * and the card's own URL; a stack in process or an agent under test (kit).
 */
export interface Endpoints {
  readonly cardUrl: string;
  readonly jsonRpcUrl: string;
  readonly restUrl: string;
  /** `host:port`, for grpc-js. */
  readonly grpcTarget: string;
  /** Records the raw exchanges of a kit case (issue 15: a failure shows them). */
  readonly log?: ExchangeLog;
  /** The kit's headers (e.g. `authorization`), under every raw request's own. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A raw HTTP request to `url` (one of the endpoints, or under one); nothing is added but what is given. */
export function rawHttp(
  endpoints: Endpoints,
  method: string,
  url: string,
  options: { body?: string; headers?: Record<string, string> } = {},
): Promise<HttpAnswer> {
  const headers = { ...endpoints.headers, ...options.headers };
  const send = async (): Promise<HttpAnswer> => {
    const response = await fetch(url, {
      method,
      headers,
      ...(options.body === undefined ? {} : { body: options.body }),
    });
    const text = await response.text();
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // Not JSON: callers assert on status and text.
    }
    return { status: response.status, headers: response.headers, text, json };
  };
  if (endpoints.log === undefined) return send();
  const request = { method, url, headers, body: options.body ?? null };
  return endpoints.log.record(`HTTP ${method}`, 'raw', request, send, (answer) => ({
    status: answer.status,
    headers: Object.fromEntries(answer.headers.entries()),
    body: answer.text,
  }));
}

/** A JSON-RPC POST with the activated headers (overridable) and a JSON content type. */
export function rawJsonRpc(
  endpoints: Endpoints,
  body: string | object,
  headers: Record<string, string> = {},
): Promise<HttpAnswer> {
  return rawHttp(endpoints, 'POST', endpoints.jsonRpcUrl, {
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { 'Content-Type': 'application/json', ...ACTIVATED_HEADERS, ...headers },
  });
}

/** A REST call under the HTTP+JSON interface URL, with the activated headers (overridable). */
export function rawRest(
  endpoints: Endpoints,
  method: 'GET' | 'POST',
  path: string,
  body?: string | object,
  headers: Record<string, string> = {},
): Promise<HttpAnswer> {
  return rawHttp(endpoints, method, `${endpoints.restUrl}${path}`, {
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    headers: {
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...ACTIVATED_HEADERS,
      ...headers,
    },
  });
}

export interface GrpcAnswer {
  readonly code: grpc.status;
  readonly message: string;
  /** The decoded google.rpc.Status of grpc-status-details-bin, when sent. */
  readonly status: Status | undefined;
  /** Its details, unpacked (ErrorInfo, BadRequest), as ProtoJSON with `@type`. */
  readonly details: JsonValue[];
  readonly responseBytes: Buffer | undefined;
  /** Response header metadata (activations are echoed here). */
  readonly headers: grpc.Metadata | undefined;
}

/** A raw unary call on TaskReminderService with grpc-js, so a case controls the exact bytes and metadata. */
export function rawGrpc(
  endpoints: Endpoints,
  rpc: 'InjectTaskReminder' | 'ListTaskReminders' | 'CancelTaskReminder',
  request: Buffer | MessageInitShape<DescMessage>,
  given: Record<string, string> = {
    'a2a-version': '1.0',
    'a2a-extensions': TASK_REMINDERS_EXTENSION_URI,
  },
): Promise<GrpcAnswer> {
  const metadata = {
    ...Object.fromEntries(
      Object.entries(endpoints.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]),
    ),
    ...given,
  };
  const found = findReminderRpc(rpc);
  if (found === undefined) throw new Error(`unknown rpc ${rpc}`);
  const bytes = Buffer.isBuffer(request)
    ? request
    : Buffer.from(toBinary(found.method.input, create(found.method.input, request)));
  if (endpoints.log !== undefined) {
    const log = endpoints.log;
    const request = { rpc, bytes: bytes.toString('base64'), metadata };
    return log.record(
      `gRPC ${rpc}`,
      'raw',
      request,
      () => grpcCall(endpoints, found.grpcPath, bytes, metadata),
      (answer) => ({
        code: answer.code,
        message: answer.message,
        details: answer.details,
        headers: answer.headers?.toJSON() ?? {},
        response: answer.responseBytes?.toString('base64') ?? null,
      }),
    );
  }
  return grpcCall(endpoints, found.grpcPath, bytes, metadata);
}

function grpcCall(
  endpoints: Endpoints,
  path: string,
  bytes: Buffer,
  metadata: Record<string, string>,
): Promise<GrpcAnswer> {
  const client = new grpc.Client(endpoints.grpcTarget, grpc.credentials.createInsecure());
  const md = new grpc.Metadata();
  for (const [key, value] of Object.entries(metadata)) md.add(key, value);
  const identity = (b: Buffer): Buffer => b;
  return new Promise((resolve) => {
    let headers: grpc.Metadata | undefined;
    const call = client.makeUnaryRequest(path, identity, identity, bytes, md, (error, response) => {
      client.close();
      const status = decodeStatus(error);
      resolve({
        code: error?.code ?? grpc.status.OK,
        message: error?.details ?? '',
        status,
        details: detailsJson(status),
        responseBytes: response,
        headers,
      });
    });
    call.on('metadata', (m: grpc.Metadata) => {
      headers = m;
    });
  });
}

function decodeStatus(error: grpc.ServiceError | null): Status | undefined {
  const bin = error?.metadata?.get(GRPC_STATUS_DETAILS_BIN)[0];
  return bin instanceof Buffer ? fromBinary(StatusSchema, bin) : undefined;
}

/** The Status details as ProtoJSON (each an object with `@type`), the way the JSON bindings send them. */
export function detailsJson(status: Status | undefined): JsonValue[] {
  if (status === undefined) return [];
  const json = toJson(StatusSchema, status, { registry: reminderTypeRegistry }) as {
    details?: JsonValue[];
  };
  return json.details ?? [];
}
