import type { ServerCallContext } from '@a2a-js/sdk/server';
import type { FieldViolation } from '@a2a-reminders/core';
import { ReminderError } from '@a2a-reminders/core';
import { buildCallContext, readRequestJson } from '@a2a-reminders/core/protocol';
import type { HttpBinding, ReminderRpcName } from '@a2a-reminders/proto';
import { findReminderRpc, reminderTypeRegistry } from '@a2a-reminders/proto';
import type { DescMessage, JsonObject, JsonValue, MessageShape } from '@bufbuild/protobuf';
import { fromBinary, fromJson, toJson } from '@bufbuild/protobuf';
import type { Any } from '@bufbuild/protobuf/wkt';
import { AnySchema, anyUnpack } from '@bufbuild/protobuf/wkt';
import { detailsJson, rawGrpc, rawHttp } from './raw-wire.js';
import { userFromAuthorization } from './users.js';
import type { Wire } from './wire.js';

/** The wire-level facts of an error answer, as the binding sent them. */
export interface WireFacts {
  readonly jsonRpcCode?: number;
  readonly httpStatus?: number;
  readonly grpcCode?: number;
  /** The google.rpc details as ProtoJSON objects with `@type`, in the order sent. */
  readonly details: JsonValue[];
  /** The HTTP bindings' `Retry-After` header (R69), when sent. */
  readonly retryAfter?: string;
}

/**
 * A request in a form a JSON object cannot give (issue 8: values JSON.stringify
 * cannot write, bodies that are not objects, malformed paths, hand-made bytes).
 */
export interface WireForm {
  /** JSON-RPC `params` or the REST body, verbatim; the direct arm reads it with core's reader. */
  readonly jsonText?: string;
  /** The REST path under the prefix, verbatim (e.g. with `%zz`). */
  readonly restPath?: string;
  /** The gRPC request bytes, verbatim. */
  readonly grpcBytes?: Buffer;
}

export type RawOutcome =
  | { readonly ok: true; readonly json: JsonObject; readonly activated: string | undefined }
  | { readonly ok: false; readonly error: ReminderError; readonly wire: WireFacts };

/**
 * The same wire, its raw calls sent on another arm's binding. Not a spread:
 * a kit wire's `stack` throws when read (harness/remote-wire.ts).
 */
export function onArm(wire: Wire, arm: Wire['arm']): Wire {
  return Object.create(wire, { arm: { value: arm } }) as Wire;
}

/**
 * One rpc with exactly the given headers (HTTP spelling; lower-cased for
 * gRPC metadata), bypassing our clients so a case controls activation,
 * version and auth. The request is ProtoJSON. Errors come back as the typed
 * error the details describe, plus the binding's own wire facts.
 */
export async function rawCall(
  wire: Wire,
  rpcName: ReminderRpcName,
  request: JsonObject,
  headers: Record<string, string>,
  form: WireForm = {},
): Promise<RawOutcome> {
  const rpc = findReminderRpc(rpcName);
  if (rpc === undefined) throw new Error(`unknown rpc ${rpcName}`);
  const endpoints = wire.endpoints;
  switch (wire.arm) {
    case 'direct': {
      const stack = wire.stack;
      const lower = Object.fromEntries(
        Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]),
      );
      // Core reads the JSON as a binding does: unreadable values become
      // violations the service reports in order (R8, R45).
      const read = readRequestJson(
        rpc.method.input,
        form.jsonText === undefined ? request : (JSON.parse(form.jsonText) as unknown),
      );
      try {
        const context: ServerCallContext = buildCallContext({
          user: userFromAuthorization(lower.authorization),
          headers: lower,
          tenant: (request.tenant as string | undefined) ?? '',
          binding: 'JSONRPC',
          agentCard: stack.card,
        });
        const handler = stack.reminders as unknown as Record<
          string,
          (
            m: unknown,
            c: ServerCallContext,
            readViolations: readonly FieldViolation[],
          ) => Promise<MessageShape<DescMessage>>
        >;
        const method = handler[rpc.method.localName];
        if (method === undefined) throw new Error(`no handler for ${rpcName}`);
        const response = await method.call(stack.reminders, read.request, context, read.violations);
        return {
          ok: true,
          json: toJson(rpc.method.output, response) as JsonObject,
          activated: context.activatedExtensions?.join(','),
        };
      } catch (error) {
        const typed = ReminderError.from(error);
        return {
          ok: false,
          error: typed,
          wire: { details: typed.toStatusDetails().map((d) => detailJson(d)) },
        };
      }
    }
    case 'jsonrpc': {
      const answer = await rawHttp(endpoints, 'POST', endpoints.jsonRpcUrl, {
        body: `{"jsonrpc":"2.0","id":1,"method":${JSON.stringify(rpc.name)},"params":${
          form.jsonText ?? JSON.stringify(request)
        }}`,
        headers: { 'Content-Type': 'application/json', ...headers },
      });
      const error = answer.json.error as
        | { code: number; message: string; data?: JsonValue[] }
        | undefined;
      if (error === undefined) {
        return {
          ok: true,
          json: answer.json.result as JsonObject,
          activated: answer.headers.get('a2a-extensions') ?? undefined,
        };
      }
      const details = Array.isArray(error.data) ? error.data : [];
      return {
        ok: false,
        error: rebuild(error.message, details),
        wire: {
          jsonRpcCode: error.code,
          httpStatus: answer.status,
          details,
          ...retryAfterOf(answer.headers),
        },
      };
    }
    case 'rest': {
      const binding = primaryOrTenant(rpc.http, request);
      const { path, rest } = fillPath(binding, request);
      const answer = await rawHttp(
        endpoints,
        binding.verb.toUpperCase(),
        `${endpoints.restUrl}${form.restPath ?? path}`,
        {
          ...(binding.body === '' ? {} : { body: form.jsonText ?? JSON.stringify(rest) }),
          headers: {
            ...(binding.body === '' ? {} : { 'Content-Type': 'application/json' }),
            ...headers,
          },
        },
      );
      if (answer.status < 400) {
        return {
          ok: true,
          json: answer.json as JsonObject,
          activated: answer.headers.get('a2a-extensions') ?? undefined,
        };
      }
      const error = answer.json.error as { message?: string; details?: JsonValue[] } | undefined;
      const details = error?.details ?? [];
      return {
        ok: false,
        error: rebuild(error?.message ?? answer.text, details),
        wire: { httpStatus: answer.status, details, ...retryAfterOf(answer.headers) },
      };
    }
    case 'grpc': {
      const metadata = Object.fromEntries(
        Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]),
      );
      const answer = await rawGrpc(
        endpoints,
        rpcName,
        form.grpcBytes ?? fromJson(rpc.method.input, request),
        metadata,
      );
      if (answer.code === 0) {
        const response = fromBinary(rpc.method.output, answer.responseBytes ?? Buffer.alloc(0));
        return {
          ok: true,
          json: toJson(rpc.method.output, response) as JsonObject,
          activated: answer.headers?.get('a2a-extensions').map(String).join(',') || undefined,
        };
      }
      const details = detailsJson(answer.status);
      return {
        ok: false,
        error: rebuild(answer.message, details),
        wire: { grpcCode: answer.code, details },
      };
    }
  }
}

function retryAfterOf(headers: Headers): { retryAfter?: string } {
  const value = headers.get('retry-after');
  return value === null ? {} : { retryAfter: value };
}

function detailJson(detail: MessageShape<DescMessage>): JsonValue {
  const schema = reminderTypeRegistry.getMessage(detail.$typeName);
  if (schema === undefined) return { '@type': detail.$typeName };
  return {
    '@type': `type.googleapis.com/${detail.$typeName}`,
    ...(toJson(schema, detail) as JsonObject),
  };
}

/** Rebuilds the typed error from ProtoJSON details, as every client does (R40). */
function rebuild(message: string, details: JsonValue[]): ReminderError {
  const decoded = details.flatMap((d) => {
    try {
      const any: Any = fromJson(AnySchema, d, { registry: reminderTypeRegistry });
      const unpacked = anyUnpack(any, reminderTypeRegistry);
      return unpacked === undefined ? [] : [unpacked];
    } catch {
      return [];
    }
  });
  return (
    ReminderError.fromStatusDetails(message, decoded) ??
    new ReminderError('INTERNAL', `undecodable error: ${message}`)
  );
}

function primaryOrTenant(bindings: readonly HttpBinding[], request: JsonObject): HttpBinding {
  const wantTenant = typeof request.tenant === 'string' && request.tenant !== '';
  const found = bindings.find(
    (b) =>
      b.path.segments.some((s) => s.kind === 'variable' && s.jsonName === 'tenant') === wantTenant,
  );
  if (found === undefined) throw new Error('no matching http binding');
  return found;
}

/** Fills a path template from the request; the rest of the request is the body. */
export function fillPath(
  binding: HttpBinding,
  request: JsonObject,
): { path: string; rest: JsonObject } {
  const rest: JsonObject = { ...request };
  const parts = binding.path.segments.map((s) => {
    if (s.kind === 'literal') return s.value;
    const value = request[s.jsonName];
    delete rest[s.jsonName];
    return encodeURIComponent(typeof value === 'string' ? value : '');
  });
  const verb = binding.path.verb === undefined ? '' : `:${binding.path.verb}`;
  return { path: `/${parts.join('/')}${verb}`, rest };
}
