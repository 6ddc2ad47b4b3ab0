import type { ReminderChangeSignal, ReminderStoreKey } from '@a2a-reminders/core';
import type { Client, Notification } from 'pg';
import { EVENT_CHANNEL, eventChannelPayload } from './event-channel.js';

/** Options of {@link PostgresChangeSignal.start}. */
export interface PostgresChangeSignalOptions {
  /** First wait before reconnecting, in ms (doubles up to `maxReconnectMs`); default 100. */
  readonly reconnectMs?: number;
  /** Longest wait between reconnect attempts, in ms; default 5 000. */
  readonly maxReconnectMs?: number;
  /**
   * How often the LISTEN connection is checked with a query, in ms (default
   * 10 000); one that does not answer within this long counts as lost.
   */
  readonly checkMs?: number;
  /** Reports a lost connection or a failed reconnect (default: console.error). */
  readonly onError?: (error: unknown) => void;
}

/** `application_name` of the LISTEN connection, as `pg_stat_activity` shows it. */
export const LISTEN_APPLICATION_NAME = 'a2a-reminders listen';

/**
 * R52, R54: a {@link ReminderChangeSignal} on PostgreSQL's own LISTEN/NOTIFY,
 * on the database the replicas share. Every reminder transaction that
 * commits events notifies the task's digest (PostgreSQL delivers
 * notifications only on commit, in commit order); this replica's
 * connection LISTENs and wakes the followers of that task.
 *
 * A notification sent while the connection is down is lost, so after every
 * reconnect each follower is woken and reads the log from its cursor:
 * nothing is missed, whatever happened in between (R54).
 */
export class PostgresChangeSignal implements ReminderChangeSignal {
  private readonly subscribers = new Map<string, Set<() => void>>();
  private client: Client | undefined;
  private closed = false;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private attempt = 0;
  private checkTimer: NodeJS.Timeout | undefined;
  private checking = false;

  private constructor(
    private readonly connect: () => Client,
    private readonly options: PostgresChangeSignalOptions,
  ) {}

  /** Connects and LISTENs; resolves once listening, so no commit after it is missed. */
  static async start(
    url: string,
    options: PostgresChangeSignalOptions = {},
  ): Promise<PostgresChangeSignal> {
    const { default: pg } = (await import('pg')) as unknown as { default: typeof import('pg') };
    const signal = new PostgresChangeSignal(
      // TCP keepalive from 10 s on keeps an idle connection through NATs and
      // proxies; a peer gone without a reset is found by the query check.
      () =>
        new pg.Client({
          connectionString: url,
          connectionTimeoutMillis: 10_000,
          keepAlive: true,
          keepAliveInitialDelayMillis: 10_000,
          application_name: LISTEN_APPLICATION_NAME,
        }),
      options,
    );
    await signal.listen();
    signal.checkTimer = setInterval(() => signal.check(), options.checkMs ?? 10_000);
    signal.checkTimer.unref();
    return signal;
  }

  subscribe(key: ReminderStoreKey, wake: () => void): () => void {
    const payload = eventChannelPayload(key);
    let set = this.subscribers.get(payload);
    if (set === undefined) {
      set = new Set();
      this.subscribers.set(payload, set);
    }
    // One entry per subscription, even for the same function.
    const entry = () => wake();
    set.add(entry);
    return () => {
      set.delete(entry);
      if (set.size === 0 && this.subscribers.get(payload) === set) this.subscribers.delete(payload);
    };
  }

  /** The server process of the LISTEN connection now (diagnostics, tests). */
  get backendPid(): number | undefined {
    return (this.client as (Client & { processID?: number }) | undefined)?.processID;
  }

  /** Whether the LISTEN connection is up now. */
  get listening(): boolean {
    return this.client !== undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    clearInterval(this.checkTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  private async listen(): Promise<void> {
    const client = this.connect();
    client.on('notification', (n: Notification) => this.notified(n));
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, new Error('LISTEN connection ended')));
    try {
      await client.connect();
      await client.query(`LISTEN ${EVENT_CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    this.attempt = 0;
  }

  /**
   * R54: a connection can be dead with no error to say so (half-open). A
   * query that fails or does not answer in time counts as a lost
   * connection: reconnect, then wake every follower to read the log.
   */
  private check(): void {
    const client = this.client;
    if (client === undefined || this.checking) return;
    this.checking = true;
    const limitMs = this.options.checkMs ?? 10_000;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the LISTEN connection did not answer within ${limitMs} ms`)),
        limitMs,
      );
    });
    Promise.race([client.query('select 1'), timeout])
      .catch((error: unknown) => this.lost(client, error))
      .finally(() => {
        clearTimeout(timer);
        this.checking = false;
      });
  }

  private notified(notification: Notification): void {
    if (notification.channel !== EVENT_CHANNEL || notification.payload === undefined) return;
    for (const wake of this.subscribers.get(notification.payload) ?? []) wake();
  }

  private lost(client: Client, error: unknown): void {
    if (this.client !== client) return;
    this.client = undefined;
    client.end().catch(() => {});
    if (this.closed) return;
    (this.options.onError ?? defaultOnError)(error);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    const base = this.options.reconnectMs ?? 100;
    const max = this.options.maxReconnectMs ?? 5_000;
    const delay = Math.min(max, base * 2 ** this.attempt);
    this.attempt += 1;
    this.reconnectTimer = setTimeout(() => {
      this.listen()
        .then(() => {
          if (this.closed) return;
          // R54: whatever was notified while down is read from the log.
          for (const set of this.subscribers.values()) for (const wake of set) wake();
        })
        .catch((error: unknown) => {
          (this.options.onError ?? defaultOnError)(error);
          if (!this.closed) this.scheduleReconnect();
        });
    }, delay);
    this.reconnectTimer.unref();
  }
}

function defaultOnError(error: unknown): void {
  console.error('task reminders: the LISTEN connection for replica events failed', error);
}
