import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamResponse } from '@a2a-js/sdk';
import { isTerminalState } from '@a2a-reminders/core';
import { taskStateOf } from './stream-items.js';

/** The header the A2A server's push sender puts the config's token in. */
export const PUSH_TOKEN_HEADER = 'x-a2a-notification-token';

/** The largest notification body read; a reminder update is a few kB. */
const MAX_BODY_BYTES = 1024 * 1024;

export interface PushReceiverOptions {
  /** Port to listen on; 0 picks a free one. */
  readonly port: number;
  /** Interface to listen on (default loopback). */
  readonly host?: string;
  /** Called with each notification refused for a missing or wrong token, or an unreadable body. */
  readonly onRefused?: (reason: string) => void;
}

/**
 * A local webhook for A2A push notifications of one task: it accepts the
 * POSTs that carry its token (a fresh random one), reads each body as the
 * StreamResponse the A2A server sent, and hands them out in arrival order
 * until the task ends. Anything else is answered 401 or 400 and reported.
 */
export class PushReceiver {
  readonly token = randomBytes(24).toString('base64url');
  readonly #server;
  readonly #queue: StreamResponse[] = [];
  #wake: (() => void) | undefined;
  #ended = false;
  readonly #onRefused: (reason: string) => void;

  private constructor(onRefused: (reason: string) => void) {
    this.#onRefused = onRefused;
    this.#server = createServer((req, res) => {
      this.#receive(req, res).catch((error: unknown) => {
        // A sender that hung up mid-body (its timeout, a dropped connection).
        this.#onRefused(`a notification cut short: ${(error as Error).message}`);
        if (!res.headersSent) res.writeHead(400);
        res.end();
      });
    });
  }

  static async start(options: PushReceiverOptions): Promise<PushReceiver> {
    const receiver = new PushReceiver(options.onRefused ?? (() => {}));
    await new Promise<void>((resolve, reject) => {
      receiver.#server.once('error', reject);
      receiver.#server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
    });
    return receiver;
  }

  /** The URL to register as the task's push notification config. */
  get url(): string {
    const { address, port } = this.#server.address() as AddressInfo;
    const host = address.includes(':') ? `[${address}]` : address;
    return `http://${host}:${port}/a2a-push`;
  }

  /** The notifications in arrival order; ends after the one that ends the task, or on close. */
  async *items(): AsyncGenerator<StreamResponse> {
    for (;;) {
      const next = this.#queue.shift();
      if (next !== undefined) {
        yield next;
        if (isTerminalState(taskStateOf(next))) return;
        continue;
      }
      if (this.#ended) return;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }

  /** Stops listening and ends {@link items}. */
  async close(): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    this.#wake?.();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #receive(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refuse = (status: number, reason: string) => {
      this.#onRefused(reason);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: reason }));
    };
    if (req.method !== 'POST') return refuse(405, `${req.method} is not a notification`);
    if (!this.#tokenMatches(req.headers[PUSH_TOKEN_HEADER])) {
      req.resume();
      return refuse(401, 'a notification without this receiver’s token');
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES) return refuse(413, `a notification over ${MAX_BODY_BYTES} bytes`);
      chunks.push(chunk as Buffer);
    }
    let item: StreamResponse;
    try {
      // Decoded whole, so a character split across chunks stays one character.
      item = StreamResponse.fromJSON(JSON.parse(Buffer.concat(chunks).toString('utf8')));
    } catch (error) {
      return refuse(
        400,
        `a notification that is not a StreamResponse: ${(error as Error).message}`,
      );
    }
    res.writeHead(204).end();
    this.#queue.push(item);
    this.#wake?.();
  }

  #tokenMatches(header: string | string[] | undefined): boolean {
    if (typeof header !== 'string') return false;
    const given = Buffer.from(header);
    const expected = Buffer.from(this.token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
