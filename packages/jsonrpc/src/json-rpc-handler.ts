import type {
  A2ARequestHandler,
  ServerCallContext,
  ServerCallContextBuilder,
} from '@a2a-js/sdk/server';
import type { UserBuilder } from '@a2a-js/sdk/server/express';
import type { ReminderRpcHandler } from '@a2a-reminders/core';
import {
  buildCallContext,
  callReminderRpc,
  httpFailureOf,
  ReminderError,
  readRequestJson,
  statusDetailsToJson,
  toResponseJson,
} from '@a2a-reminders/core';
import type { ReminderRpc } from '@a2a-reminders/proto';
import { findReminderRpc } from '@a2a-reminders/proto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import express from 'express';
import {
  JSON_RPC_INTERNAL_ERROR,
  JSON_RPC_INVALID_REQUEST,
  JSON_RPC_PARSE_ERROR,
  jsonRpcErrorTable,
} from './errors.js';

/** Default limit for a reminder call's request body (issue 4, W12). */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

/**
 * The SDK's jsonRpcHandler parses with `express.json()` and its default
 * 100 kB limit (102400 bytes). Bodies are read up to the larger of this and
 * our own limit, so the SDK's own methods keep exactly the room they had (W12).
 */
export const SDK_JSON_LIMIT_BYTES = 100 * 1024;

export interface JsonRpcReminderHandlerOptions {
  /** The reminder service (core's `createReminderService`, or any ReminderRpcHandler). */
  readonly reminders: ReminderRpcHandler;
  /** The SDK request handler given to `jsonRpcHandler`; only its agent card is read (version check). */
  readonly requestHandler: Pick<A2ARequestHandler, 'getAgentCard'>;
  /** The same UserBuilder given to `jsonRpcHandler`. */
  readonly userBuilder: UserBuilder;
  /** The same context builder given to `jsonRpcHandler`, if any. */
  readonly contextBuilder?: ServerCallContextBuilder;
  /** Largest request body accepted for a reminder call; default 64 KiB. */
  readonly maxBodyBytes?: number;
}

type JsonRpcId = string | number | null;

/** A request without an `id` member (JSON-RPC 2.0 §4.1): performed, never answered (W11). */
const NOTIFICATION = Symbol('notification');
type ReplyTo = JsonRpcId | typeof NOTIFICATION;

interface JsonRpcErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/**
 * Express middleware answering the TaskReminderService rpcs as JSON-RPC
 * methods (named after the rpcs, A2A v1.0 §9). Mount it before the SDK's
 * `jsonRpcHandler` on the same path; every other request goes to `next()`
 * with its body already parsed, which the SDK's own `express.json()` accepts
 * as is.
 */
export function jsonRpcReminderHandler(options: JsonRpcReminderHandlerOptions): RequestHandler {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  // W12: one read limit for the endpoint, enforced while the body streams in;
  // the reminder limit is checked on the byte count before params are decoded.
  const readLimit = Math.max(maxBodyBytes, SDK_JSON_LIMIT_BYTES);
  const bodyBytes = new WeakMap<object, number>();
  const parseJson = express.json({
    limit: readLimit,
    verify: (req, _res, buf) => {
      bodyBytes.set(req, buf.length);
    },
  });

  const handleParsed = (req: Request, res: Response, next: NextFunction): void => {
    const body: unknown = req.body;
    const readHere = bodyBytes.get(req);
    const rpc =
      isJsonObject(body) && typeof body.method === 'string'
        ? findReminderRpc(body.method)
        : undefined;
    const id = isJsonObject(body) && isValidId(body.id) ? body.id : null;
    if (rpc === undefined || !isJsonObject(body)) {
      // A reminder limit above the SDK's must not widen the room of the SDK's
      // methods (W12). A body parsed by a parser mounted in front was read
      // under that parser's limit, which is the app's to choose.
      if (readHere !== undefined && readHere > SDK_JSON_LIMIT_BYTES) {
        sendJsonRpcError(res, 413, id, tooLarge(readHere, SDK_JSON_LIMIT_BYTES, 'A2A methods'));
        return;
      }
      next();
      return;
    }
    const size = readHere ?? parsedSize(req, body);
    if (size > maxBodyBytes) {
      sendJsonRpcError(res, 413, id, tooLarge(size, maxBodyBytes, 'reminder methods'));
      return;
    }
    if (body.jsonrpc !== '2.0' || ('id' in body && !isValidId(body.id))) {
      sendJsonRpcError(res, 200, id, {
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
      handleParsed(req, res, next);
      return;
    }
    parseJson(req, res, (error?: unknown) => {
      if (error !== undefined && error !== null) {
        sendBodyError(res, error, readLimit, maxBodyBytes);
        return;
      }
      // No body, or a content type the SDK's guard answers for every method.
      if (req.body === undefined) {
        next();
        return;
      }
      handleParsed(req, res, next);
    });
  };
}

/**
 * The size of a body a parser in front of this handler already read: its
 * Content-Length, or (chunked) the length of its JSON, so a reminder call
 * never escapes the reminder limit (W12).
 */
function parsedSize(req: Request, body: unknown): number {
  const declared = Number(req.header('content-length'));
  return Number.isFinite(declared) && declared > 0
    ? declared
    : Buffer.byteLength(JSON.stringify(body));
}

async function handleCall(
  options: JsonRpcReminderHandlerOptions,
  rpc: ReminderRpc,
  params: unknown,
  id: ReplyTo,
  req: Request,
  res: Response,
): Promise<void> {
  let context: ServerCallContext | undefined;
  try {
    // Same steps as the SDK's jsonRpcHandler: user, context (the tenant of a
    // JSON-RPC call is params.tenant), version check, then the params.
    const user = await options.userBuilder(req);
    const agentCard = await options.requestHandler.getAgentCard();
    const tenant =
      isJsonObject(params) && typeof params.tenant === 'string' ? params.tenant : undefined;
    const ctx = buildCallContext({
      user,
      headers: req.headers,
      tenant,
      binding: 'JSONRPC',
      agentCard,
      contextBuilder: options.contextBuilder,
    });
    context = ctx;
    // R45: unreadable params are not refused here; the service reports them
    // after authentication and activation, with its own violations (R8).
    const read = readRequestJson(rpc.method.input, params, 'params');
    const response = await callReminderRpc(
      options.reminders,
      rpc,
      read.request,
      ctx,
      read.violations,
    );
    const result = toResponseJson(rpc.method.output, response);
    setExtensionsHeader(res, ctx);
    sendJsonRpcResult(res, id, result);
  } catch (thrown) {
    const error = ReminderError.from(thrown);
    if (error.code === 'INTERNAL') {
      console.error(`JSON-RPC ${rpc.name} failed:`, error.cause ?? error);
    }
    const wire = jsonRpcErrorTable[error.code];
    const details = statusDetailsToJson(error.toStatusDetails());
    if (context !== undefined) setExtensionsHeader(res, context);
    sendJsonRpcError(res, wire.httpStatus, id, {
      code: wire.code,
      message: error.message,
      ...(details.length > 0 ? { data: details } : {}),
    });
  }
}

/** 413 for a body of `size` bytes over `limit`; the message names the limit that refused it (W12). */
function tooLarge(size: number, limit: number, scope: string): JsonRpcErrorObject {
  return {
    code: JSON_RPC_INVALID_REQUEST,
    message: `Request body of ${size} bytes exceeds the limit of ${limit} bytes for ${scope}.`,
  };
}

/** Body-reading failures, answered the way the SDK's jsonErrorHandler answers malformed JSON. */
function sendBodyError(
  res: Response,
  error: unknown,
  readLimit: number,
  maxBodyBytes: number,
): void {
  const type = (error as { type?: unknown }).type;
  if (type === 'entity.parse.failed') {
    sendJsonRpcError(res, 200, null, {
      code: JSON_RPC_PARSE_ERROR,
      message: 'Invalid JSON payload.',
    });
  } else if (type === 'entity.too.large') {
    // Reading stopped at the read limit, before the method was known (W12).
    const reminders =
      maxBodyBytes < readLimit ? `; reminder methods take at most ${maxBodyBytes} bytes` : '';
    sendJsonRpcError(res, 413, null, {
      code: JSON_RPC_INVALID_REQUEST,
      message: `Request body exceeds ${readLimit} bytes, the most this endpoint reads${reminders}.`,
    });
  } else {
    // An unknown encoding or charset, an aborted body: the caller's 4xx, or a bare 500 (W13).
    const failure = httpFailureOf(error);
    sendJsonRpcError(res, failure.status, null, {
      code: failure.status === 500 ? JSON_RPC_INTERNAL_ERROR : JSON_RPC_INVALID_REQUEST,
      message: failure.message,
    });
  }
}

function sendJsonRpcResult(res: Response, id: ReplyTo, result: unknown): void {
  if (id === NOTIFICATION) {
    sendNoReply(res);
    return;
  }
  res.status(200).json({ jsonrpc: '2.0', id, result });
}

function sendJsonRpcError(
  res: Response,
  httpStatus: number,
  id: ReplyTo,
  error: JsonRpcErrorObject,
): void {
  if (res.headersSent) {
    if (!res.writableEnded) res.end();
    return;
  }
  if (id === NOTIFICATION) {
    sendNoReply(res);
    return;
  }
  res.status(httpStatus).json({ jsonrpc: '2.0', id, error });
}

/**
 * A notification was performed; JSON-RPC 2.0 forbids any reply, even an
 * error, so HTTP carries 204 and no body (W11).
 */
function sendNoReply(res: Response): void {
  if (res.headersSent) {
    if (!res.writableEnded) res.end();
    return;
  }
  res.status(204).end();
}

/** Echoes activated extensions exactly as the SDK's jsonRpcHandler does. */
function setExtensionsHeader(res: Response, context: ServerCallContext): void {
  if (context.activatedExtensions !== undefined && !res.headersSent) {
    res.setHeader('A2A-Extensions', Array.from(context.activatedExtensions));
  }
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON-RPC 2.0 ids: a string, an integer or null. */
function isValidId(value: unknown): value is JsonRpcId {
  return (
    typeof value === 'string' ||
    value === null ||
    (typeof value === 'number' && Number.isInteger(value))
  );
}
