import type { AgentExecutionEvent, ExecutionEventBus } from '@a2a-js/sdk/server';
import type { TaskReminderEvent } from '@a2a-reminders/proto';
import { TaskReminderEventBatchSchema } from '@a2a-reminders/proto';
import { fromBinary, toBinary } from '@bufbuild/protobuf';
import { eventBatch } from './events.js';
import type { BusRegistry, StatusFallback } from './publisher.js';
import type { ReminderChangeSignal, ReminderEventLog, ReminderStoreKey } from './store.js';
import { storeKeyString } from './store.js';
import { isTerminalState } from './task-states.js';

/** Batches one catch-up read takes from the log. */
const CATCH_UP_PAGE = 128;
/** A failed log read is retried after this long, doubling up to {@link MAX_RETRY_MS}. */
const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 5_000;
/** Reads a commit waits for before its caller goes on without the batch (R54). */
const INLINE_ATTEMPTS = 3;

/** A task whose execution runs on this replica: where its committed events go, and how far. */
interface Follower {
  readonly key: ReminderStoreKey;
  readonly taskId: string;
  readonly bus: ExecutionEventBus;
  fallback: StatusFallback;
  /** The last batch position delivered (or skipped); undefined until read from the log. */
  cursor: number | undefined;
  /** Positions committed here that must not reach the stream (before its first event, R28). */
  readonly silent: Set<number>;
  /** Every delivery step runs on this chain, so batches go out in commit order. */
  chain: Promise<void>;
  /** Steps queued on the chain and not finished; 0: a batch next in line can go out now. */
  queued: number;
  catchUpQueued: boolean;
  /** Backoff of the next retry after a failed read; reset by a read that succeeds. */
  retryMs: number;
  retryTimer: ReturnType<typeof setTimeout> | undefined;
  stopped: boolean;
  unsubscribe: () => void;
}

/** The encoded form a batch has in the log (R52). */
export function encodeEventBatch(taskId: string, events: TaskReminderEvent[]): Uint8Array {
  return toBinary(TaskReminderEventBatchSchema, eventBatch(taskId, events));
}

/**
 * R52, R54: delivers each task's event batches, whichever replica committed
 * them, to the streams of the replica running the task, in the order the
 * store committed them. The replica that runs a task follows it: a batch it
 * committed itself goes out at once when it is next in line; otherwise (a
 * batch committed elsewhere, or a wake-up after a reconnect) the follower
 * reads the log from its cursor. The log is the source of truth, so a lost
 * or repeated wake-up costs a read, never an event or a duplicate.
 */
export class ReplicaDelivery {
  private readonly followers = new Map<string, Follower>();

  constructor(
    private readonly log: ReminderEventLog,
    private readonly signal: ReminderChangeSignal,
    private readonly buses: BusRegistry,
  ) {}

  /**
   * Follows the task for as long as its SDK bus lives here: from an
   * execution's start until the bus is finished, through any wait in
   * INPUT_REQUIRED in between (the SDK keeps the bus for follow-up sends and
   * resubscribers, and fates committed elsewhere meanwhile are held for them,
   * R30). Following again with the same bus is a no-op. Batches committed
   * before the first call are not delivered: without replicas they would
   * have found no stream either (R32: they stay listable). Throws, following
   * nothing, when the log cannot be read.
   */
  async follow(
    key: ReminderStoreKey,
    bus: ExecutionEventBus,
    fallback: StatusFallback,
  ): Promise<void> {
    const k = storeKeyString(key);
    const existing = this.followers.get(k);
    if (existing !== undefined && existing.bus === bus) {
      existing.fallback = fallback;
      return;
    }
    if (existing !== undefined) this.stop(k, existing);
    const follower: Follower = {
      key,
      taskId: key.taskId,
      bus,
      fallback,
      cursor: undefined,
      silent: new Set(),
      chain: Promise.resolve(),
      queued: 0,
      catchUpQueued: false,
      retryMs: FIRST_RETRY_MS,
      retryTimer: undefined,
      stopped: false,
      unsubscribe: () => {},
    };
    this.followers.set(k, follower);
    // Subscribe before reading the position: a batch committed in between
    // wakes the follower, which then reads it from the log.
    follower.unsubscribe = this.signal.subscribe(key, () => this.wake(follower));
    try {
      await this.enqueue(follower, async () => {
        follower.cursor = await retried(() => this.log.lastSeq(key), INLINE_ATTEMPTS);
      });
    } catch (error) {
      this.stop(k, follower);
      throw error;
    }
    bus.on('finished', () => this.stop(k, follower));
    // The SDK does not always finish a bus whose task ended (a CancelTask of
    // a task waiting in INPUT_REQUIRED): nothing more reaches its streams
    // after a terminal status, so following ends there too.
    bus.on('event', (event) => {
      if (endsTask(event)) this.stop(k, follower);
    });
  }

  /** Whether this replica runs the task's execution (and so delivers its events). */
  follows(key: ReminderStoreKey): boolean {
    return this.followers.has(storeKeyString(key));
  }

  /**
   * A batch this replica committed at `seq`. Resolves once it (and every
   * earlier batch) went out, or at once when no execution here follows the
   * task: the replica running it reads the batch from the log.
   * `publish: false` records it as delivered without sending it (R28: a
   * stream that has not seen its first event).
   */
  committed(
    key: ReminderStoreKey,
    seq: number,
    events: readonly TaskReminderEvent[],
    fallback: StatusFallback,
    publish = true,
  ): Promise<void> {
    const follower = this.followers.get(storeKeyString(key));
    if (follower === undefined) return Promise.resolve();
    follower.fallback = fallback;
    if (!publish) follower.silent.add(seq);
    if (follower.queued === 0 && follower.cursor === seq - 1) {
      this.deliver(follower, seq, events);
      return Promise.resolve();
    }
    // The batch is committed whatever happens here: a read that keeps failing
    // is logged and retried later (the cursor stays), never answered to the
    // caller as if the step had failed.
    return this.enqueue(follower, () => this.catchUp(follower, seq, INLINE_ATTEMPTS)).catch(
      (error: unknown) => this.failed(follower, error),
    );
  }

  private wake(follower: Follower): void {
    if (follower.catchUpQueued || follower.stopped) return;
    follower.catchUpQueued = true;
    this.enqueue(follower, async () => {
      follower.catchUpQueued = false;
      await this.catchUp(follower, undefined, 1);
    }).catch((error: unknown) => this.failed(follower, error));
  }

  /** R54: a read that failed is logged and tried again later, until one succeeds or the bus ends. */
  private failed(follower: Follower, error: unknown): void {
    console.error(`task reminders: reading task ${follower.taskId}'s event log failed`, error);
    if (follower.stopped || follower.retryTimer !== undefined) return;
    follower.retryTimer = setTimeout(() => {
      follower.retryTimer = undefined;
      this.wake(follower);
    }, follower.retryMs);
    follower.retryTimer.unref?.();
    follower.retryMs = Math.min(MAX_RETRY_MS, follower.retryMs * 2);
  }

  /**
   * Reads and delivers the log after the cursor (at least up to `upTo`, when
   * given), trying a failed read up to `attempts` times.
   */
  private async catchUp(
    follower: Follower,
    upTo: number | undefined,
    attempts: number,
  ): Promise<void> {
    await retried(
      () => this.readLog(follower, upTo),
      attempts,
      () => follower.stopped,
    );
    follower.retryMs = FIRST_RETRY_MS;
  }

  private async readLog(follower: Follower, upTo: number | undefined): Promise<void> {
    for (;;) {
      if (follower.stopped) return;
      const cursor = follower.cursor ?? 0;
      if (upTo !== undefined && cursor >= upTo) return;
      const page = await this.log.after(follower.key, cursor, CATCH_UP_PAGE);
      for (const logged of page) {
        if (logged.seq <= (follower.cursor ?? 0)) continue;
        const events = fromBinary(TaskReminderEventBatchSchema, logged.batch).events;
        this.deliver(follower, logged.seq, events);
      }
      if (page.length < CATCH_UP_PAGE) return;
    }
  }

  private deliver(follower: Follower, seq: number, events: readonly TaskReminderEvent[]): void {
    follower.cursor = seq;
    if (follower.silent.delete(seq)) return;
    this.buses.publishBatch(follower.bus, follower.taskId, follower.fallback, events);
  }

  private enqueue(follower: Follower, step: () => Promise<void>): Promise<void> {
    follower.queued += 1;
    const run = follower.chain.then(step).finally(() => {
      follower.queued -= 1;
    });
    // A failed step must not stop later ones; its caller sees the failure.
    follower.chain = run.catch(() => {});
    return run;
  }

  private stop(k: string, follower: Follower): void {
    follower.stopped = true;
    clearTimeout(follower.retryTimer);
    follower.unsubscribe();
    if (this.followers.get(k) === follower) this.followers.delete(k);
  }
}

function endsTask(event: AgentExecutionEvent): boolean {
  const state =
    event.kind === 'task' || event.kind === 'statusUpdate' ? event.data.status?.state : undefined;
  return state !== undefined && isTerminalState(state);
}

/**
 * A read tried up to `attempts` times (fewer once `stop()` says so): a
 * transient failure need not fail the execution or delay a batch.
 */
async function retried<T>(
  read: () => Promise<T>,
  attempts: number,
  stop: () => boolean = () => false,
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await read();
    } catch (error) {
      if (attempt >= attempts || stop()) throw error;
      await pause(attempt);
    }
  }
}

function pause(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, FIRST_RETRY_MS * 2 ** attempt));
}
