import type { ReminderClient, ReminderClientOptions } from '@a2a-reminders/core';
import { reminderCallHeaders, reminderClientOf } from '@a2a-reminders/core/protocol';
import { createGrpcTransport, Http2SessionManager } from '@connectrpc/connect-node';
import { reminderErrorFromConnectError } from './connect-error-to-reminder-error.js';

/** The gRPC ReminderClient; `close()` ends its HTTP/2 connection. */
export interface GrpcReminderClient extends ReminderClient {
  close(): void;
}

/**
 * A ReminderClient over gRPC built on `@connectrpc/connect` and its Node
 * HTTP/2 gRPC transport: an implementation independent of the grpc-js server
 * (W10). `baseUrl` is the server address as `http://host:port`. Every call
 * sends `a2a-version: 1.0` and activates the extension in `a2a-extensions`.
 */
export function createGrpcReminderClient(options: ReminderClientOptions): GrpcReminderClient {
  const sessionManager = new Http2SessionManager(options.baseUrl);
  const transport = createGrpcTransport({ baseUrl: options.baseUrl, sessionManager });
  const client = reminderClientOf(async (method, init, call) => {
    // The same rule as the HTTP clients (W6): the caller's a2a-extensions are
    // kept and gain the URI. Connect sends the Headers as gRPC metadata.
    const headers = reminderCallHeaders(options.headers, call?.headers);
    try {
      return (await transport.unary(method, call?.signal, undefined, headers, init)).message;
    } catch (error) {
      // The contract rejects an aborted call with the signal's reason, not a wire error (W9).
      if (call?.signal?.aborted) throw call.signal.reason;
      throw reminderErrorFromConnectError(error);
    }
  });
  return { ...client, close: () => sessionManager.abort() };
}
