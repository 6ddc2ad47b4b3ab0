import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import type { JsonRpcHandlerOptions, UserBuilder } from '@a2a-js/sdk/server/express';
import { jsonRpcHandler } from '@a2a-js/sdk/server/express';
import type { ReminderBindingOptions } from '@a2a-reminders/core/protocol';
import {
  DEFAULT_MAX_REQUEST_BYTES,
  isJsonObject,
  JSON_RPC_INVALID_REQUEST,
  jsonBodyReader,
  readRequestJson,
  reminderErrorWire,
  runHttpReminderCall,
  statusDetailsToJson,
} from '@a2a-reminders/core/protocol';
import type { ReminderRpc } from '@a2a-reminders/proto';
import { findReminderRpc } from '@a2a-reminders/proto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import express from 'express';
import type { JsonRpcErrorObject, ReplyTo } from './json-rpc-reply.js';
import {
  isJsonRpcId,
  NOTIFICATION,
  replyBodyFailure,
  replyError,
  replyResult,
} from './json-rpc-reply.js';

/** Default limit for a reminder call's request body (W12). */
export const DEFAULT_MAX_BODY_BYTES = DEFAULT_MAX_REQUEST_BYTES;

/**
 * The SDK's jsonRpcHandler parses with `express.json()` and its default
 * 100 kB limit (102400 bytes). Bodies are read up to the larger of this and
 * our own limit, so the SDK's own methods keep exactly the room they had (W12).
 */
export const SDK_JSON_LIMIT_BYTES = 100 * 1024;

/** The options of the SDK's `jsonRpcHandler`, the reminder service, and the body limit. */
export interface JsonRpcReminderHandlerOptions extends ReminderBindingOptions<UserBuilder> {
  /** Largest request body accepted for a reminder call; default 64 KiB. */
  readonly maxBodyBytes?: number;
}

/** What `jsonRpcHandlerWithReminders` takes: this handler's options, and the SDK's handler's. */
export interface JsonRpcHandlerWithRemindersOptions extends JsonRpcReminderHandlerOptions {
  /** The SDK's request handler, which serves every method that is not a reminder rpc. */
  readonly requestHandler: A2ARequestHandler;
  /** The SDK's v0.3 layer, for its `jsonRpcHandler` only (reminder methods have no v0.3 form). */
  readonly legacyCompat?: JsonRpcHandlerOptions['legacyCompat'];
}

/**
 * Express middleware answering the TaskReminderService rpcs as JSON-RPC
 * methods (named after the rpcs, A2A v1.0 §9, W1): the first piece of
 * `jsonRpcHandlerWithReminders`, for an app that mounts the SDK's
 * `jsonRpcHandler` after it on the same path itself. Every other request goes
 * to `next()` with its body already parsed, which the SDK's own
 * `express.json()` accepts as is.
 */
export function jsonRpcReminderHandler(options: JsonRpcReminderHandlerOptions): RequestHandler {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  // W12: one read limit for the endpoint, enforced while the body streams in;
  // the reminder limit is checked on the byte count before params are decoded.
  const readLimit = Math.max(maxBodyBytes, SDK_JSON_LIMIT_BYTES);
  const tooLargeToRead = `Request body exceeds ${readLimit} bytes, the most this endpoint reads${
    maxBodyBytes < readLimit ? `; reminder methods take at most ${maxBodyBytes} bytes` : ''
  }.`;
  // express.json()'s defaults made explicit: application/json only, strict.
  const parseJson = jsonBodyReader<Request, Response>(
    { limit: readLimit, type: ['application/json'], strict: true },
    express.json,
  );
  // A chunked or compressed body's size is known only once read: counted
  // through `verify`, a Buffer and a WeakMap entry per body. A body sent as is
  // needs neither, since either reader holds it to its Content-Length exactly.
  const countedBytes = new WeakMap<object, number>();
  const parseCountingJson = express.json({
    limit: readLimit,
    verify: (req, _res, buf) => {
      countedBytes.set(req, buf.length);
    },
  });

  /** `readHere`: the bytes this handler read, or undefined for a body parsed in front of it. */
  const handleParsed = (
    req: Request,
    res: Response,
    next: NextFunction,
    readHere: number | undefined,
  ): void => {
    const body: unknown = req.body;
    const rpc =
      isJsonObject(body) && typeof body.method === 'string'
        ? findReminderRpc(body.method)
        : undefined;
    const id = isJsonObject(body) && isJsonRpcId(body.id) ? body.id : null;
    if (rpc === undefined || !isJsonObject(body)) {
      // A reminder limit above the SDK's must not widen the room of the SDK's
      // methods (W12). A body parsed by a parser mounted in front was read
      // under that parser's limit, which is the app's to choose.
      if (readHere !== undefined && readHere > SDK_JSON_LIMIT_BYTES) {
        replyError(res, 413, id, tooLarge(readHere, SDK_JSON_LIMIT_BYTES, 'A2A methods'));
        return;
      }
      next();
      return;
    }
    const size = readHere ?? parsedSize(req, body);
    if (size > maxBodyBytes) {
      replyError(res, 413, id, tooLarge(size, maxBodyBytes, 'reminder methods'));
      return;
    }
    if (body.jsonrpc !== '2.0' || ('id' in body && !isJsonRpcId(body.id))) {
      replyError(res, 200, id, {
        code: JSON_RPC_INVALID_REQUEST,
        message: 'Invalid JSON-RPC Request.',
      });
      return;
    }
    void handleCall(options, rpc, body.params, 'id' in body ? id : NOTIFICATION, req, res);
  };

  return (req, res, next) => {
    // Only where the SDK's handler answers: POSTs to the mount path itself (W1).
    if (req.method !== 'POST' || req.path !== '/') {
      next();
      return;
    }
    // Someone mounted express.json() in front of us: the body is parsed already.
    if (req.body !== undefined) {
      handleParsed(req, res, next, undefined);
      return;
    }
    // Either reader holds an identity body to its Content-Length exactly.
    const declared = declaredLength(req);
    const parse = declared === undefined ? parseCountingJson : parseJson;
    parse(req, res, (error?: unknown) => {
      if (error !== undefined && error !== null) {
        // Reading stopped at the read limit, before the method was known (W12).
        replyBodyFailure(res, error, tooLargeToRead);
        return;
      }
      // No body, or a content type the SDK's guard answers for every method.
      if (req.body === undefined) {
        next();
        return;
      }
      handleParsed(req, res, next, declared ?? countedBytes.get(req));
    });
  };
}

/**
 * The SDK's `jsonRpcHandler` with the reminder methods in front of it, as one
 * middleware: `app.use(path, jsonRpcHandlerWithReminders(options))` serves
 * what `jsonRpcReminderHandler(options)` and `jsonRpcHandler(options)` mounted
 * one after the other serve, with one express layer instead of two
 * (packages/bench README, "One layer per binding").
 */
export function jsonRpcHandlerWithReminders(
  options: JsonRpcHandlerWithRemindersOptions,
): RequestHandler {
  const reminders = jsonRpcReminderHandler(options);
  const sdk = jsonRpcHandler(sdkHandlerOptions(options));
  return (req, res, next) => {
    reminders(req, res, (error?: unknown) => {
      if (error !== undefined) {
        next(error);
        return;
      }
      // Called from a body parser's callback, outside express's own try: a
      // throw goes to the error handlers, as it would between two layers.
      try {
        sdk(req, res, next);
      } catch (thrown) {
        next(thrown);
      }
    });
  };
}

/** The SDK handler's own options, named: nothing of ours reaches it. */
export function sdkHandlerOptions(
  options: JsonRpcHandlerWithRemindersOptions,
): JsonRpcHandlerOptions {
  const { requestHandler, userBuilder, contextBuilder, legacyCompat } = options;
  return {
    requestHandler,
    userBuilder,
    ...(contextBuilder === undefined ? {} : { contextBuilder }),
    ...(legacyCompat === undefined ? {} : { legacyCompat }),
  };
}

/** The Content-Length of a body sent as is; undefined when chunked, compressed or unusual. */
function declaredLength(req: Request): number | undefined {
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return undefined;
  const header = req.headers['content-length'];
  if (header === undefined) return undefined;
  const length = Number(header);
  return Number.isFinite(length) ? length : undefined;
}

/**
 * The size of a body a parser in front of this handler already read: its
 * Content-Length when sent as is, else (chunked, or compressed, whose
 * Content-Length counts the compressed bytes) the length of its JSON, so a
 * reminder call never escapes the reminder limit (W12).
 */
function parsedSize(req: Request, body: unknown): number {
  const declared = declaredLength(req);
  return declared !== undefined && declared > 0
    ? declared
    : Buffer.byteLength(JSON.stringify(body));
}

async function handleCall(
  options: JsonRpcReminderHandlerOptions,
  rpc: ReminderRpc,
  params: unknown,
  to: ReplyTo,
  req: Request,
  res: Response,
): Promise<void> {
  const outcome = await runHttpReminderCall(
    {
      // Named, not spread: one call shape whatever options the user passed.
      reminders: options.reminders,
      requestHandler: options.requestHandler,
      contextBuilder: options.contextBuilder,
      rpc,
      binding: 'JSONRPC',
      headers: req.headers,
      // The tenant of a JSON-RPC call is params.tenant, as in the SDK's jsonRpcHandler.
      tenant: isJsonObject(params) && typeof params.tenant === 'string' ? params.tenant : undefined,
      user: () => options.userBuilder(req),
      // R45: params that do not read are reported by the service, after
      // authentication and activation, with its own violations (R8).
      read: () => readRequestJson(rpc.method.input, params, 'params'),
    },
    res,
    'JSON-RPC',
  );
  if (outcome.ok) {
    replyResult(res, to, outcome.result);
    return;
  }
  const { error } = outcome;
  const wire = reminderErrorWire[error.code];
  const details = statusDetailsToJson(error.toStatusDetails());
  replyError(res, wire.jsonRpcHttp, to, {
    code: wire.jsonRpc,
    message: error.message,
    ...(details.length > 0 ? { data: details } : {}),
  });
}

/** 413 for a body of `size` bytes over `limit`; the message names the limit that refused it (W12). */
function tooLarge(size: number, limit: number, scope: string): JsonRpcErrorObject {
  return {
    code: JSON_RPC_INVALID_REQUEST,
    message: `Request body of ${size} bytes exceeds the limit of ${limit} bytes for ${scope}.`,
  };
}
