import type {
  ReminderCallOptions,
  ReminderClient,
  ReminderClientOptions,
} from '@a2a-reminders/core';
import { reminderCallHeaders } from '@a2a-reminders/core';
import { TaskReminderService } from '@a2a-reminders/proto';
import type { CallOptions } from '@connectrpc/connect';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport, Http2SessionManager } from '@connectrpc/connect-node';
import { reminderErrorFromConnectError } from './connect-error-to-reminder-error.js';

/** The gRPC ReminderClient; `close()` ends its HTTP/2 connection. */
export interface GrpcReminderClient extends ReminderClient {
  close(): void;
}

/**
 * A ReminderClient over gRPC built on `@connectrpc/connect` and its Node
 * HTTP/2 gRPC transport: an implementation independent of the grpc-js server
 * (issue 4). `baseUrl` is the server address as `http://host:port`. Every call
 * sends `a2a-version: 1.0` and activates the extension in `a2a-extensions`.
 */
export function createGrpcReminderClient(options: ReminderClientOptions): GrpcReminderClient {
  const sessionManager = new Http2SessionManager(options.baseUrl);
  const client = createClient(
    TaskReminderService,
    createGrpcTransport({ baseUrl: options.baseUrl, sessionManager }),
  );

  // The same rule as the HTTP clients (W6): the caller's a2a-extensions are
  // kept and gain the URI. Connect sends the Headers as gRPC metadata.
  const callOptions = (call: ReminderCallOptions | undefined): CallOptions => ({
    headers: reminderCallHeaders(options.headers, call?.headers),
    ...(call?.signal ? { signal: call.signal } : {}),
  });

  const invoke = async <T>(
    call: ReminderCallOptions | undefined,
    run: (o: CallOptions) => Promise<T>,
  ): Promise<T> => {
    try {
      return await run(callOptions(call));
    } catch (error) {
      // The contract rejects an aborted call with the signal's reason, not a wire error.
      if (call?.signal?.aborted) throw call.signal.reason;
      throw reminderErrorFromConnectError(error);
    }
  };

  return {
    injectTaskReminder: (request, call) =>
      invoke(call, (o) => client.injectTaskReminder(request, o)),
    listTaskReminders: (request, call) => invoke(call, (o) => client.listTaskReminders(request, o)),
    cancelTaskReminder: (request, call) =>
      invoke(call, (o) => client.cancelTaskReminder(request, o)),
    close: () => sessionManager.abort(),
  };
}
