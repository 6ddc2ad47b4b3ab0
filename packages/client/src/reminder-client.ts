import type { Binding, ReminderClient } from '@a2a-reminders/core';
import { createGrpcReminderClient } from '@a2a-reminders/grpc';
import { createJsonRpcReminderClient } from '@a2a-reminders/jsonrpc';
import { createRestReminderClient } from '@a2a-reminders/rest';

/** A reminder client that may hold a connection (gRPC's HTTP/2 session) until closed. */
export interface ClosableReminderClient extends ReminderClient {
  close(): void;
}

export interface ReminderClientTarget {
  /** The agent card's interface URL for the binding; for gRPC `host:port` or a URL. */
  readonly url: string;
  /** Headers (HTTP) or metadata (gRPC) sent with every call, e.g. `authorization`. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The interface's tenant: filled into every request that names none, as the SDK does. */
  readonly tenant?: string;
}

/** The binding package's client for an interface URL as an agent card lists it. */
export function createReminderClient(
  binding: Binding,
  target: ReminderClientTarget,
): ClosableReminderClient {
  const options = {
    baseUrl: binding === 'grpc' ? grpcBaseUrl(target.url) : target.url,
    ...(target.headers === undefined ? {} : { headers: target.headers }),
  };
  if (binding === 'grpc') {
    const grpc = createGrpcReminderClient(options);
    return scoped(grpc, target.tenant ?? '', () => grpc.close());
  }
  const http = binding === 'jsonrpc' ? createJsonRpcReminderClient : createRestReminderClient;
  return scoped(http(options), target.tenant ?? '', () => {});
}

/**
 * Fills the interface's tenant into every request that names none, as the
 * SDK's TenantTransportDecorator does for the A2A rpcs on the same interface.
 */
function scoped(client: ReminderClient, tenant: string, close: () => void): ClosableReminderClient {
  const withTenant = <R extends { tenant?: string }>(request: R): R =>
    tenant === '' || request.tenant ? request : { ...request, tenant };
  return {
    injectTaskReminder: (request, call) => client.injectTaskReminder(withTenant(request), call),
    listTaskReminders: (request, call) => client.listTaskReminders(withTenant(request), call),
    cancelTaskReminder: (request, call) => client.cancelTaskReminder(withTenant(request), call),
    close,
  };
}

/**
 * `127.0.0.1:50051` → `http://127.0.0.1:50051`; a URL passes through. Cards
 * list gRPC interfaces as grpc-js dials them (`host:port`), while the
 * Connect-based reminder client wants a URL.
 */
export function grpcBaseUrl(address: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(address) ? address : `http://${address}`;
}
