import {
  ContentTypeNotSupportedError,
  RequestMalformedError,
  toRestErrorBody,
} from '@a2a-js/sdk/errors';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import type { RestHandlerOptions, UserBuilder } from '@a2a-js/sdk/server/express';
import { restHandler } from '@a2a-js/sdk/server/express';
import type { ReminderError } from '@a2a-reminders/core';
import type { JsonResponse, ReminderBindingOptions } from '@a2a-reminders/core/protocol';
import {
  DEFAULT_MAX_REQUEST_BYTES,
  httpFailureOf,
  isBodyTooLarge,
  jsonBodyReader,
  reminderErrorWire,
  rpcCodeName,
  runHttpReminderCall,
  sendJson,
  statusDetailsToJson,
} from '@a2a-reminders/core/protocol';
import type { HttpBinding, ReminderRpc } from '@a2a-reminders/proto';
import { reminderRpcs } from '@a2a-reminders/proto';
import type { Request, RequestHandler, Response } from 'express';
import express from 'express';
import { matchPathTemplate } from './path-template.js';
import { queryFields, restRequest } from './rest-request.js';

/** Default limit for a reminder call's request body (W12). */
export const DEFAULT_MAX_BODY_BYTES = DEFAULT_MAX_REQUEST_BYTES;

/** Response media type of A2A's HTTP+JSON binding (A2A v1.0 §11.1), as the SDK sends it. */
export const A2A_CONTENT_TYPE = 'application/a2a+json';
const JSON_CONTENT_TYPE = 'application/json';

/** The options of the SDK's `restHandler`, the reminder service, and the body limit. */
export interface RestReminderRouterOptions extends ReminderBindingOptions<UserBuilder> {
  /** Largest request body accepted; default 64 KiB. */
  readonly maxBodyBytes?: number;
}

/** What `restHandlerWithReminders` takes: the router's options, and the SDK's handler's. */
export interface RestHandlerWithRemindersOptions extends RestReminderRouterOptions {
  /** The SDK's request handler, which serves every request no reminder route takes. */
  readonly requestHandler: A2ARequestHandler;
  /** The SDK's v0.3 layer, for its `restHandler` only (reminder routes have no v0.3 form). */
  readonly legacyCompat?: RestHandlerOptions['legacyCompat'];
}

interface Route {
  readonly rpc: ReminderRpc;
  readonly binding: HttpBinding;
}

/**
 * An express middleware serving TaskReminderService over HTTP+JSON: the first
 * piece of `restHandlerWithReminders`, for an app that mounts the SDK's
 * `restHandler` after it on the same prefix itself. Its routes are the rpcs'
 * `google.api.http` rules, read from the descriptor, including the
 * `/{tenant}/…` forms (W2); requests it does not route pass on untouched, at
 * once. A plain middleware, not an `express.Router`: a router hands on a
 * request it does not serve only after `setImmediate`, so every SDK request on
 * the prefix waited one event-loop turn, and paid the router's dispatch, for
 * nothing.
 */
export function restReminderRouter(options: RestReminderRouterOptions): RequestHandler {
  const serve = reminderRouteServer(options);
  return (req, res, next) => {
    if (!serve(req, res)) next();
  };
}

/**
 * The SDK's `restHandler` with this package's routes in front of it, as one
 * middleware: `app.use(prefix, restHandlerWithReminders(options))` serves
 * what `restReminderRouter(options)` and `restHandler(options)` mounted one
 * after the other serve. One layer instead of two: mounted as two middlewares,
 * the extension cost the SDK's GetTask about 3 % of its instructions, as one
 * 0–1 % (packages/bench README, "One layer per binding").
 */
export function restHandlerWithReminders(options: RestHandlerWithRemindersOptions): RequestHandler {
  const serve = reminderRouteServer(options);
  const sdk = restHandler(sdkHandlerOptions(options));
  return (req, res, next) => {
    if (!serve(req, res)) sdk(req, res, next);
  };
}

/** The SDK handler's own options, named: nothing of ours reaches it. */
export function sdkHandlerOptions(options: RestHandlerWithRemindersOptions): RestHandlerOptions {
  const { requestHandler, userBuilder, contextBuilder, legacyCompat } = options;
  return {
    requestHandler,
    userBuilder,
    ...(contextBuilder === undefined ? {} : { contextBuilder }),
    ...(legacyCompat === undefined ? {} : { legacyCompat }),
  };
}

/**
 * Serves a request on a reminder route and returns true, or returns false,
 * having touched nothing, for a request on no route.
 */
function reminderRouteServer(
  options: RestReminderRouterOptions,
): (req: Request, res: Response) => boolean {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const routesByMethod = routesByHttpMethod();
  const parseJson = jsonBodyReader<Request, Response>(
    { limit: maxBodyBytes, type: [JSON_CONTENT_TYPE, A2A_CONTENT_TYPE], strict: false },
    express.json,
  );
  return (req, res) => {
    const routes = routesByMethod.get(req.method);
    if (routes === undefined) return false;
    const path = req.path;
    for (const route of routes) {
      const pathValues = matchPathTemplate(route.binding.path, path);
      if (pathValues === undefined) continue;
      res.setHeader('Content-Type', A2A_CONTENT_TYPE);
      if (route.binding.body === '') {
        void handleCall(options, route, pathValues, queryFields(route.rpc, req.query), req, res);
        return true;
      }
      if (!isJsonContentType(req.header('content-type'))) {
        const error = new ContentTypeNotSupportedError(
          `Unsupported Content-Type "${req.header('content-type')}"; expected application/json or application/a2a+json.`,
        );
        sendJson(res, 400, toRestErrorBody(error, 400));
        return true;
      }
      parseJson(req, res, (error?: unknown) => {
        if (error !== undefined && error !== null) {
          sendBodyError(res, error, maxBodyBytes);
          return;
        }
        const body: unknown = req.body;
        void handleCall(options, route, pathValues, body === undefined ? {} : body, req, res);
      });
      return true;
    }
    return false;
  };
}

/** The rules by HTTP method as node spells it (`GET`), in the descriptor's order. */
function routesByHttpMethod(): Map<string, Route[]> {
  const byMethod = new Map<string, Route[]>();
  for (const rpc of reminderRpcs) {
    for (const binding of rpc.http) {
      const method = binding.verb.toUpperCase();
      const routes = byMethod.get(method) ?? [];
      routes.push({ rpc, binding });
      byMethod.set(method, routes);
    }
  }
  return byMethod;
}

async function handleCall(
  options: RestReminderRouterOptions,
  { rpc }: Route,
  pathValues: Record<string, string>,
  fields: unknown,
  req: Request,
  res: Response,
): Promise<void> {
  const { tenant, read } = restRequest(rpc, pathValues, fields);
  const outcome = await runHttpReminderCall(
    {
      // Named, not spread: one call shape whatever options the user passed.
      reminders: options.reminders,
      requestHandler: options.requestHandler,
      contextBuilder: options.contextBuilder,
      rpc,
      binding: 'HTTP+JSON',
      headers: req.headers,
      tenant,
      user: () => options.userBuilder(req),
      read,
    },
    res,
    'REST',
  );
  if (outcome.ok) sendJson(res, 200, outcome.result);
  else sendStatusBody(res, outcome.error);
}

/** The `google.rpc.Status` body of a reminder error (R39, R40). */
function sendStatusBody(res: Response, error: ReminderError): void {
  const wire = reminderErrorWire[error.code];
  sendJson(res, wire.http, {
    error: {
      code: wire.http,
      status: rpcCodeName(wire.grpc),
      message: error.message,
      details: statusDetailsToJson(error.toStatusDetails()),
    },
  });
}

/** Body-reading failures (W3), answered like the SDK's restHandler answers malformed JSON. */
function sendBodyError(res: JsonResponse, error: unknown, maxBodyBytes: number): void {
  // Malformed JSON is 400; an unknown encoding or charset, an aborted body the
  // caller's 4xx; anything else a bare 500 (W13).
  const failure = httpFailureOf(error);
  const [status, message] = isBodyTooLarge(error)
    ? [413, `Request body exceeds ${maxBodyBytes} bytes.`]
    : [failure.status, failure.message];
  sendJson(res, status, toRestErrorBody(new RequestMalformedError(message), status));
}

/** A missing Content-Type passes, as in the SDK's restContentTypeGuard. */
function isJsonContentType(raw: string | undefined): boolean {
  if (raw === undefined || raw === '') return true;
  const mediaType = (raw.split(';', 1)[0] ?? '').trim().toLowerCase();
  return mediaType === JSON_CONTENT_TYPE || mediaType === A2A_CONTENT_TYPE;
}
