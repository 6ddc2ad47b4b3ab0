import {
  ContentTypeNotSupportedError,
  RequestMalformedError,
  toRestErrorBody,
} from '@a2a-js/sdk/errors';
import type {
  A2ARequestHandler,
  ServerCallContext,
  ServerCallContextBuilder,
} from '@a2a-js/sdk/server';
import type { UserBuilder } from '@a2a-js/sdk/server/express';
import type { FieldViolation, ReminderRpcHandler } from '@a2a-reminders/core';
import {
  buildCallContext,
  callReminderRpc,
  httpFailureOf,
  ReminderError,
  readRequestJson,
  statusDetailsToJson,
  toResponseJson,
} from '@a2a-reminders/core';
import type { HttpBinding, ReminderRpc } from '@a2a-reminders/proto';
import { reminderRpcs } from '@a2a-reminders/proto';
import { ScalarType } from '@bufbuild/protobuf';
import type { Request, Response, Router } from 'express';
import express from 'express';
import { restErrorTable } from './errors.js';
import { matchPathTemplate } from './path-template.js';

/** Default limit for a reminder call's request body (issue 4). */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

/** Response media type of A2A's HTTP+JSON binding (A2A v1.0 §11.1), as the SDK sends it. */
const A2A_CONTENT_TYPE = 'application/a2a+json';
const JSON_CONTENT_TYPE = 'application/json';

export interface RestReminderRouterOptions {
  /** The reminder service (core's `createReminderService`, or any ReminderRpcHandler). */
  readonly reminders: ReminderRpcHandler;
  /** The SDK request handler given to `restHandler`; only its agent card is read (version check). */
  readonly requestHandler: Pick<A2ARequestHandler, 'getAgentCard'>;
  /** The same UserBuilder given to `restHandler`. */
  readonly userBuilder: UserBuilder;
  /** The same context builder given to `restHandler`, if any. */
  readonly contextBuilder?: ServerCallContextBuilder;
  /** Largest request body accepted; default 64 KiB. */
  readonly maxBodyBytes?: number;
}

interface Route {
  readonly rpc: ReminderRpc;
  readonly binding: HttpBinding;
}

/**
 * An express router serving TaskReminderService over HTTP+JSON. Its routes
 * are the rpcs' `google.api.http` rules, read from the descriptor, including
 * the `/{tenant}/…` forms. Mount it before the SDK's `restHandler` on the
 * same prefix; requests it does not route pass on untouched.
 */
export function restReminderRouter(options: RestReminderRouterOptions): Router {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const routes: Route[] = reminderRpcs.flatMap((rpc) =>
    rpc.http.map((binding) => ({ rpc, binding })),
  );
  const parseJson = express.json({
    limit: maxBodyBytes,
    type: [JSON_CONTENT_TYPE, A2A_CONTENT_TYPE],
    strict: false,
  });
  const router = express.Router();
  router.use((req, res, next) => {
    const verb = req.method.toLowerCase();
    for (const route of routes) {
      if (route.binding.verb !== verb) continue;
      const pathValues = matchPathTemplate(route.binding.path, req.path);
      if (pathValues === undefined) continue;
      res.setHeader('Content-Type', A2A_CONTENT_TYPE);
      if (route.binding.body === '') {
        void handleCall(options, route, pathValues, undefined, req, res);
        return;
      }
      if (!isJsonContentType(req.header('content-type'))) {
        const error = new ContentTypeNotSupportedError(
          `Unsupported Content-Type "${req.header('content-type')}"; expected application/json or application/a2a+json.`,
        );
        res.status(400).json(toRestErrorBody(error, 400));
        return;
      }
      parseJson(req, res, (error?: unknown) => {
        if (error !== undefined && error !== null) {
          sendBodyError(res, error, maxBodyBytes);
          return;
        }
        void handleCall(options, route, pathValues, req.body, req, res);
      });
      return;
    }
    next();
  });
  return router;
}

async function handleCall(
  options: RestReminderRouterOptions,
  route: Route,
  rawPathValues: Record<string, string>,
  body: unknown,
  req: Request,
  res: Response,
): Promise<void> {
  const { rpc, binding } = route;
  let context: ServerCallContext | undefined;
  try {
    // R45: an unreadable path segment or body is not refused here; the
    // service reports it after authentication and activation (R8).
    const path = decodePathValues(rawPathValues);
    const pathValues = path.values;
    let json: unknown;
    if (binding.body === '') json = queryFields(rpc, req.query);
    else json = body === undefined ? {} : body;
    // Path variables fill their fields; a path tenant wins over the body's, as in the SDK.
    if (isJsonObject(json)) json = { ...json, ...pathValues };

    // Same steps as the SDK's restHandler: user, context with the path tenant, version check.
    const user = await options.userBuilder(req);
    const agentCard = await options.requestHandler.getAgentCard();
    const ctx = buildCallContext({
      user,
      headers: req.headers,
      tenant: pathValues.tenant,
      binding: 'HTTP+JSON',
      agentCard,
      contextBuilder: options.contextBuilder,
    });
    context = ctx;
    const read = readRequestJson(rpc.method.input, json);
    const response = await callReminderRpc(options.reminders, rpc, read.request, ctx, [
      ...path.violations,
      ...read.violations,
    ]);
    const result = toResponseJson(rpc.method.output, response);
    setExtensionsHeader(res, ctx);
    res.status(200).json(result);
  } catch (thrown) {
    const error = ReminderError.from(thrown);
    if (error.code === 'INTERNAL') {
      console.error(`REST ${rpc.name} failed:`, error.cause ?? error);
    }
    if (context !== undefined) setExtensionsHeader(res, context);
    const wire = restErrorTable[error.code];
    sendStatusBody(res, wire.httpStatus, {
      error: {
        code: wire.httpStatus,
        status: wire.status,
        message: error.message,
        details: statusDetailsToJson(error.toStatusDetails()),
      },
    });
  }
}

/** Body-reading failures, answered like the SDK's restHandler answers malformed JSON. */
function sendBodyError(res: Response, error: unknown, maxBodyBytes: number): void {
  const type = (error as { type?: unknown }).type;
  let status = 400;
  let message = 'Invalid JSON payload.';
  if (type === 'entity.too.large') {
    status = 413;
    message = `Request body exceeds ${maxBodyBytes} bytes.`;
  } else if (type !== 'entity.parse.failed') {
    // An unknown encoding or charset, an aborted body: the caller's 4xx, or a bare 500 (W13).
    ({ status, message } = httpFailureOf(error));
  }
  sendStatusBody(res, status, toRestErrorBody(new RequestMalformedError(message), status));
}

function sendStatusBody(res: Response, httpStatus: number, body: unknown): void {
  if (res.headersSent) {
    if (!res.writableEnded) res.end();
    return;
  }
  res.status(httpStatus).json(body);
}

/** The path variables that decode, and a violation for each that does not (R8, R45). */
function decodePathValues(raw: Record<string, string>): {
  values: Record<string, string>;
  violations: FieldViolation[];
} {
  const values: Record<string, string> = {};
  const violations: FieldViolation[] = [];
  for (const [field, value] of Object.entries(raw)) {
    try {
      values[field] = decodeURIComponent(value);
    } catch {
      violations.push({ field, description: 'is not a valid percent-encoded path segment' });
    }
  }
  return { values, violations };
}

/**
 * Query parameters of a body-less call fill the request's top-level scalar
 * fields not bound by the path (google.api.http rules); others are ignored,
 * as the SDK ignores them. Every query value is text, so a bool field's
 * `true`/`false` become JSON booleans (R49 `liveOnly`); numbers stay decimal
 * strings, which ProtoJSON reads. A parameter given twice stays a list, which
 * the parser refuses on that field rather than silently picking one.
 */
function queryFields(rpc: ReminderRpc, query: Request['query']): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of rpc.method.input.fields) {
    if (field.fieldKind !== 'scalar' && field.fieldKind !== 'enum') continue;
    const value = query[field.jsonName] ?? query[field.name];
    if (Array.isArray(value)) out[field.jsonName] = value;
    if (typeof value !== 'string') continue;
    const isBool = field.fieldKind === 'scalar' && field.scalar === ScalarType.BOOL;
    out[field.jsonName] =
      isBool && (value === 'true' || value === 'false') ? value === 'true' : value;
  }
  return out;
}

/** Echoes activated extensions exactly as the SDK's restHandler does. */
function setExtensionsHeader(res: Response, context: ServerCallContext): void {
  if (context.activatedExtensions !== undefined && !res.headersSent) {
    res.setHeader('A2A-Extensions', Array.from(context.activatedExtensions));
  }
}

/** A missing Content-Type passes, as in the SDK's restContentTypeGuard. */
function isJsonContentType(raw: string | undefined): boolean {
  if (raw === undefined || raw === '') return true;
  const mediaType = (raw.split(';', 1)[0] ?? '').trim().toLowerCase();
  return mediaType === JSON_CONTENT_TYPE || mediaType === A2A_CONTENT_TYPE;
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
