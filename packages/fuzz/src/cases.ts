/** The three bindings the fuzzer drives. */
export const BINDINGS = ['jsonrpc', 'rest', 'grpc'] as const;
export type Binding = (typeof BINDINGS)[number];

/** One generated HTTP request (JSON-RPC or REST). */
export interface HttpCase {
  readonly kind: string;
  readonly method: string;
  /** Path and query, relative to the worker's HTTP base URL; sent as is. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Uint8Array | string;
  /** A JSON-RPC notification: W11 says it gets no response body. */
  readonly notification?: boolean;
  /** No answer at all is right too (a JSON-RPC batch of notifications). */
  readonly silentOk?: boolean;
  /** The body is over the binding's limit: the server may close the connection after answering. */
  readonly oversized?: boolean;
  /** Why the spec requires a refusal, when it does: an acceptance is then a defect. */
  readonly mustRefuse?: string;
}

/** One generated gRPC call, sent as raw HTTP/2 so any bytes and headers can go out. */
export interface GrpcCase {
  readonly kind: string;
  /** `/package.Service/Method`. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The whole request body: length-prefixed frames, or anything else. */
  readonly body: Uint8Array;
  readonly oversized?: boolean;
  /** Why the spec requires a refusal, when it does: an acceptance is then a defect. */
  readonly mustRefuse?: string;
}

export type FuzzCase = HttpCase | GrpcCase;

/** What the generators know about the worker: tasks that exist, so requests get past the lookup. */
export interface FuzzContext {
  readonly taskIds: readonly string[];
  /** Unique within the run, for fresh reminder ids. */
  readonly unique: string;
}

/** Reminder ids valid injects, re-sends and cancels share, so replays, conflicts and cancels happen. */
export const SHARED_IDS = Array.from({ length: 12 }, (_, i) => `fz-shared-${i}`);
