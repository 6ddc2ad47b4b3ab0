import { JSON_RPC_INVALID_REQUEST, JSON_RPC_METHOD_NOT_FOUND } from '@a2a-reminders/core/protocol';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { replyBodyFailure, replyError } from './json-rpc-reply.js';

/**
 * Express handlers to mount last on the JSON-RPC path, after
 * `jsonRpcHandlerWithReminders` (or the SDK's `jsonRpcHandler`), so that every answer of the path is a JSON-RPC error
 * object (W13): a request nobody answered (a method other than POST, a
 * sub-path) and an error the SDK's stack passed on (`PUT` with a
 * `Content-Encoding` body-parser does not know, a body over the SDK's own
 * limit) would otherwise get express's HTML page with a stack trace and file
 * paths. No answer carries a stack or a path: a server fault is a bare -32603.
 *
 * `app.use(path, jsonRpcHandlerWithReminders(…), ...jsonRpcFallback())`
 */
export function jsonRpcFallback(): [RequestHandler, ErrorRequestHandler] {
  const unanswered: RequestHandler = (req, res) => {
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      replyError(res, 405, null, {
        code: JSON_RPC_INVALID_REQUEST,
        message: 'JSON-RPC requests are POSTs.',
      });
      return;
    }
    // No endpoint here: clients report UNIMPLEMENTED, as for a server without the method (R39).
    replyError(res, 404, null, {
      code: JSON_RPC_METHOD_NOT_FOUND,
      message: 'No JSON-RPC endpoint at this path.',
    });
  };
  const failed: ErrorRequestHandler = (error: unknown, _req, res, _next) => {
    const failure = replyBodyFailure(res, error);
    if (failure.status === 500) console.error('JSON-RPC request failed before dispatch:', error);
  };
  return [unanswered, failed];
}
