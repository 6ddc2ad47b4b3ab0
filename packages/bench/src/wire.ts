import { TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';

/** Where the bench server mounts each router (README, What it measures, the goals.3). */
export const HTTP_PATHS = {
  jsonrpc: '/a2a/jsonrpc',
  jsonrpcStock: '/a2a/jsonrpc-stock',
  rest: '/a2a/rest',
  restStock: '/a2a/rest-stock',
  noop: '/noop',
} as const;

/** Headers every A2A call sends: version 1.0 and the extension activated. */
export const A2A_HEADERS = {
  'a2a-version': '1.0',
  'a2a-extensions': TASK_REMINDERS_EXTENSION_URI,
} as const;

/** The one line the bench server prints once it serves. */
export interface ServerReady {
  readonly httpPort: number;
  readonly grpcPort: number;
  readonly pid: number;
  readonly tasks: number;
}

export const READY_PREFIX = 'BENCH_SERVER ';

/**
 * The bench server's quota of live reminders per task (R17), above the
 * default 64: only the boundaries between slices end the plain arms'
 * reminders, and at 7,500 injects a second a 10 s slice adds 75 to each of
 * 1000 tasks. The quota check costs the same at any quota; the report prints
 * the most live reminders one task held against it.
 */
export const BENCH_MAX_LIVE_REMINDERS = 1024;

export function parseReadyLine(line: string): ServerReady | undefined {
  if (!line.startsWith(READY_PREFIX)) return undefined;
  return JSON.parse(line.slice(READY_PREFIX.length)) as ServerReady;
}

/** Which clients the load process uses, printed with the results. */
export const LOAD_CLIENTS =
  'HTTP: node:http Agent (keep-alive, 16 sockets); gRPC: @grpc/grpc-js Client.makeUnaryRequest (16 concurrent calls, one channel)';
