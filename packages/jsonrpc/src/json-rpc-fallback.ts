import { httpFailureOf } from '@a2a-reminders/core';
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import {
  JSON_RPC_INTERNAL_ERROR,
  JSON_RPC_INVALID_REQUEST,
  JSON_RPC_METHOD_NOT_FOUND,
  JSON_RPC_PARSE_ERROR,
} from './errors.js';

/**
 * Express handlers to mount last on the JSON-RPC path, after the SDK's
 * `jsonRpcHandler`, so that every answer of the path is a JSON-RPC error
 * object (W13): a request nobody answered (a method other than POST, a
 * sub-path) and an error the SDK's stack passed on (`PUT` with a
 * `Content-Encoding` body-parser does not know, a body over the SDK's own
 * limit) would otherwise get express's HTML page with a stack trace and file
 * paths. No answer carries a stack or a path: a server fault is a bare -32603.
 *
 * `app.use(path, jsonRpcReminderHandler(…), jsonRpcHandler(…), ...jsonRpcFallback())`
 */
export function jsonRpcFallback(): [RequestHandler, ErrorRequestHandler] {
  const unanswered: RequestHandler = (req, res) => {
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      send(res, 405, JSON_RPC_INVALID_REQUEST, 'JSON-RPC requests are POSTs.');
      return;
    }
    // No endpoint here: clients report UNIMPLEMENTED, as for a server without the method (R39).
    send(res, 404, JSON_RPC_METHOD_NOT_FOUND, 'No JSON-RPC endpoint at this path.');
  };
  const failed: ErrorRequestHandler = (error: unknown, _req, res, _next) => {
    const failure = httpFailureOf(error);
    if (failure.malformedJson) {
      // As the SDK's own jsonErrorHandler answers it.
      send(res, 200, JSON_RPC_PARSE_ERROR, failure.message);
    } else if (failure.status === 500) {
      console.error('JSON-RPC request failed before dispatch:', error);
      send(res, 500, JSON_RPC_INTERNAL_ERROR, failure.message);
    } else {
      send(res, failure.status, JSON_RPC_INVALID_REQUEST, failure.message);
    }
  };
  return [unanswered, failed];
}

function send(res: Response, httpStatus: number, code: number, message: string): void {
  if (res.headersSent) {
    if (!res.writableEnded) res.end();
    return;
  }
  res.status(httpStatus).json({ jsonrpc: '2.0', id: null, error: { code, message } });
}
