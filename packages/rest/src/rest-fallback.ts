import type { JsonResponse, RpcCodeName } from '@a2a-reminders/core/protocol';
import { httpFailureOf, sendJson } from '@a2a-reminders/core/protocol';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { A2A_CONTENT_TYPE } from './rest-router.js';

/** google.rpc.Code names of the HTTP statuses a failure before dispatch can have. */
const statusNames: Readonly<Record<number, RpcCodeName>> = {
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
};

/**
 * Express handlers to mount last on the HTTP+JSON prefix, after
 * `restHandlerWithReminders` (or the SDK's `restHandler`), so that every answer under the prefix is a
 * `google.rpc.Status` JSON body (W13): a route nobody serves and an error the
 * SDK's stack passed on (a `Content-Encoding` body-parser does not know, a
 * body over the SDK's own limit) would otherwise get express's HTML page with
 * a stack trace and file paths. No answer carries a stack or a path: a
 * server fault is a bare INTERNAL.
 *
 * `app.use(prefix, restHandlerWithReminders(…), ...restFallback())`
 */
export function restFallback(): [RequestHandler, ErrorRequestHandler] {
  const unrouted: RequestHandler = (_req, res) => {
    sendStatus(res, 404, 'No HTTP+JSON route matches this method and path.');
  };
  const failed: ErrorRequestHandler = (error: unknown, _req, res, _next) => {
    const failure = httpFailureOf(error);
    if (failure.status === 500) console.error('HTTP+JSON request failed before dispatch:', error);
    sendStatus(res, failure.status, failure.message);
  };
  return [unrouted, failed];
}

/** A `google.rpc.Status` body for a failure that reached no rpc; other 4xx are INVALID_ARGUMENT (W3). */
function sendStatus(res: JsonResponse, httpStatus: number, message: string): void {
  if (!res.headersSent) res.setHeader('Content-Type', A2A_CONTENT_TYPE);
  sendJson(res, httpStatus, {
    error: {
      code: httpStatus,
      status: statusNames[httpStatus] ?? 'INVALID_ARGUMENT',
      message,
      details: [],
    },
  });
}
