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
  parseRequestJson,
  ReminderError,
  statusDetailsToJson,
  toResponseJson,
} from '@a2a-reminders/core';
import type { ReminderRpc } from '@a2a-reminders/proto';
import { findReminderRpc } from '@a2a-reminders/proto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import express from 'express';
import { JSON_RPC_INVALID_REQUEST, JSON_RPC_PARSE_ERROR, jsonRpcErrorTable } from './errors.js';

/** Default limit for a reminder call's request body (issue 4). */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

/**
 * The SDK's jsonRpcHandler parses with `express.json()` and its default
 * 100 kB limit. Bodies are read up to the larger of this and our own limit,
 * so the SDK's own methods keep exactly the room they had.
 */
const SDK_JSON_LIMIT_BYTES = 100 * 1024;

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
  const bodyBytes = new WeakMap<object, number>();
  const parseJson = express.json({
    limit: Math.max(maxBodyBytes, SDK_JSON_LIMIT_BYTES),
    verify: (req, _res, buf) => {
      bodyBytes.set(req, buf.length);
    },
  });

  const handleParsed = (req: Request, res: Response, next: NextFunction): void => {
    const body: unknown = req.body;
    if (!isJsonObject(body)) {
      next();
      return;
    }
    const rpc = typeof body.method === 'string' ? findReminderRpc(body.method) : undefined;
    if (rpc === undefined) {
      next();
      return;
    }

    const id = isValidId(body.id) ? body.id : null;
    const size = bodyBytes.get(req) ?? Number(req.header('content-length') ?? 0);
    if (size > maxBodyBytes) {
      sendJsonRpcError(res, 413, id, {
        code: JSON_RPC_INVALID_REQUEST,
        message: `Request body exceeds ${maxBodyBytes} bytes.`,
      });
      return;
    }
    if (body.jsonrpc !== '2.0' || ('id' in body && !isValidId(body.id))) {
      sendJsonRpcError(res, 200, id, {
        code: JSON_RPC_INVALID_REQUEST,
        message: 'Invalid JSON-RPC Request.',
      });
      return;
    }
    void handleCall(options, rpc, body.params, id, req, res);
  };

  return (req, res, next) => {
    if (req.method !== 'POST') {
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
        sendBodyError(res, error, maxBodyBytes);
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

async function handleCall(
  options: JsonRpcReminderHandlerOptions,
  rpc: ReminderRpc,
  params: unknown,
  id: JsonRpcId,
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
    if (!isJsonObject(params)) {
      throw ReminderError.invalidArgument([
        { field: 'params', description: 'must be a JSON object (the ProtoJSON request)' },
      ]);
    }
    const request = parseRequestJson(rpc.method.input, params);
    const response = await callReminderRpc(options.reminders, rpc, request, ctx);
    const result = toResponseJson(rpc.method.output, response);
    setExtensionsHeader(res, ctx);
    res.status(200).json({ jsonrpc: '2.0', id, result });
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

/** Body-reading failures, answered the way the SDK's jsonErrorHandler answers malformed JSON. */
function sendBodyError(res: Response, error: unknown, maxBodyBytes: number): void {
  const type = (error as { type?: unknown }).type;
  if (type === 'entity.parse.failed') {
    sendJsonRpcError(res, 200, null, {
      code: JSON_RPC_PARSE_ERROR,
      message: 'Invalid JSON payload.',
    });
  } else if (type === 'entity.too.large') {
    sendJsonRpcError(res, 413, null, {
      code: JSON_RPC_INVALID_REQUEST,
      message: `Request body exceeds ${maxBodyBytes} bytes.`,
    });
  } else {
    const status = (error as { status?: unknown }).status;
    sendJsonRpcError(res, typeof status === 'number' && status >= 400 ? status : 400, null, {
      code: JSON_RPC_INVALID_REQUEST,
      message: error instanceof Error ? error.message : 'Unreadable request body.',
    });
  }
}

function sendJsonRpcError(
  res: Response,
  httpStatus: number,
  id: JsonRpcId,
  error: JsonRpcErrorObject,
): void {
  if (res.headersSent) {
    if (!res.writableEnded) res.end();
    return;
  }
  res.status(httpStatus).json({ jsonrpc: '2.0', id, error });
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
