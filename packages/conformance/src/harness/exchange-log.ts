import type { Exchange } from '../kit/kit-meta.js';

/** At most this many exchanges are kept per case: the last ones, which led to the failure. */
const MAX_EXCHANGES = 40;

/**
 * What a kit case sent the agent under test and what came back, in order,
 * so a failure shows the requests and responses behind it (issue 15). Only
 * remote wires record; the in-process suite has its stack to look at.
 */
export class ExchangeLog {
  private readonly entries: Array<() => Exchange> = [];
  /** Streams stay whatever else is dropped: they are the evidence of a missing event. */
  private readonly streams: Array<() => Exchange> = [];
  private dropped = 0;

  /** Runs `call` and records its request with its answer (as `describe` puts it) or its error. */
  async record<T>(
    call: string,
    binding: string,
    request: unknown,
    run: () => Promise<T>,
    describe: (response: T) => unknown = jsonOf,
  ): Promise<T> {
    const sent = jsonOf(request);
    try {
      const response = await run();
      const received = jsonOf(describe(response));
      this.push(() => ({ call, binding, request: sent, response: received }));
      return response;
    } catch (error) {
      const failure = errorJson(error);
      this.push(() => ({ call, binding, request: sent, error: failure }));
      throw error;
    }
  }

  /** Records a stream: what it has yielded is read when the log is, so a failure shows all of it. */
  recordStream(
    call: string,
    binding: string,
    request: unknown,
    items: () => readonly unknown[],
  ): void {
    const sent = jsonOf(request);
    this.streams.push(() => ({
      call,
      binding,
      request: sent,
      response: { streamed: jsonOf(items()) },
    }));
  }

  /** The exchanges so far, oldest first; a note first when older ones were dropped. */
  snapshot(): Exchange[] {
    const kept = this.entries.map((entry) => entry());
    if (this.dropped === 0) return kept;
    return [
      { call: `(${this.dropped} earlier exchanges not kept)`, binding: '', request: null },
      ...kept,
    ];
  }

  private push(entry: () => Exchange): void {
    this.entries.push(entry);
    if (this.entries.length > MAX_EXCHANGES) {
      this.entries.shift();
      this.dropped += 1;
    }
  }
}

/** A plain JSON value of what a client sent or got: protobuf-es brands dropped, bytes and bigints as text. */
export function jsonOf(value: unknown): unknown {
  if (value === undefined) return null;
  const text = JSON.stringify(value, (key, v: unknown) => {
    if (key === '$typeName' || key === '$unknown') return undefined;
    if (typeof v === 'bigint') return v.toString();
    if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
    if (v instanceof Headers) return Object.fromEntries(v.entries());
    return v;
  });
  return text === undefined ? null : (JSON.parse(text) as unknown);
}

/** An error as the case saw it: its name, message, and the typed fields a ReminderError or A2A error carries. */
function errorJson(error: unknown): unknown {
  if (!(error instanceof Error)) return jsonOf(error);
  const fields: Record<string, unknown> = { name: error.name, message: error.message };
  for (const key of ['code', 'metadata', 'fieldViolations', 'details'] as const) {
    const value = (error as unknown as Record<string, unknown>)[key];
    if (value !== undefined) fields[key] = jsonOf(value);
  }
  return fields;
}
