import type { Server } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { httpFailureOf, sendJson } from '@a2a-reminders/core/protocol';
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';

/**
 * The worker's answers outside the bindings' paths (W13): a simple JSON
 * error, never express's HTML page, a stack trace or a file path. The
 * bindings' own paths answer in their binding's shape (`jsonRpcFallback`,
 * `restFallback`); these come last and catch the rest.
 */
export const jsonNotFound: RequestHandler = (_req, res) => {
  sendJsonError(res, 404, 'Nothing is served at this method and path.');
};

export const jsonErrorHandler: ErrorRequestHandler = (error: unknown, _req, res, _next) => {
  const failure = httpFailureOf(error);
  if (failure.status === 500) console.error('request failed:', error);
  sendJsonError(res, failure.status, failure.message);
};

function sendJsonError(res: Response, status: number, message: string): void {
  sendJson(res, status, { error: { code: status, message } });
}

/**
 * Requests node's HTTP parser refuses (an unknown method, a broken request
 * line or header) never reach express; node would answer them with an empty
 * 400. They get the same JSON error, then the connection closes.
 */
export function answerUnparsableRequestsWithJson(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const answering = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || answering?.headersSent === true) {
      socket.destroy();
      return;
    }
    const status =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? 431
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? 408
          : 400;
    const body = JSON.stringify({
      error: { code: status, message: 'The request is not valid HTTP/1.1.' },
    });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `Connection: close\r\n\r\n${body}`,
    );
  });
}
