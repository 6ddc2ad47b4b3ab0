import type { AgentConnection } from '@a2a-reminders/client';
import { connectToAgent } from '@a2a-reminders/client';
import type { Connection } from './cli-args.js';

/** A worker reached over one binding: the stock SDK client for A2A calls, ours for reminders. */
export type WorkerConnection = AgentConnection;

/**
 * Resolves the worker's agent card (its URL, or the worker's base URL) and
 * connects over `connection.binding`: the SDK client and the reminder client
 * on the card's interface for that binding, both sending the extra headers
 * (issue 5: "it resolves the card and picks the interface URLs for the
 * binding"). An unreachable worker fails with the card URL and the cause.
 */
export function connectToWorker(connection: Connection): Promise<WorkerConnection> {
  return connectToAgent(connection.url, {
    binding: connection.binding,
    headers: connection.headers,
  });
}
