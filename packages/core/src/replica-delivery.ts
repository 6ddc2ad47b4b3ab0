import type { ExecutionEventBus } from '@a2a-js/sdk/server';
import type { TaskReminderEvent } from '@a2a-reminders/proto';
import { TaskReminderEventBatchSchema } from '@a2a-reminders/proto';
import { fromBinary, toBinary } from '@bufbuild/protobuf';
import { eventBatch } from './events.js';
import type { BusRegistry, StatusFallback } from './publisher.js';
import type { ReminderChangeSignal, ReminderEventLog, ReminderStoreKey } from './store.js';
import { storeKeyString } from './store.js';

/** Batches one catch-up read takes from the log. */
const CATCH_UP_PAGE = 128;

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
  executions: number;
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
   * Follows the task while its execution runs here; the returned function
   * stops. Batches committed before this call are not delivered: without
   * replicas they would have found no stream either (R32: they stay listable).
   */
  async follow(
    key: ReminderStoreKey,
    bus: ExecutionEventBus,
    fallback: StatusFallback,
  ): Promise<() => void> {
    const k = storeKeyString(key);
    const existing = this.followers.get(k);
    if (existing !== undefined && existing.bus === bus) {
      existing.executions += 1;
      return () => this.unfollow(k, existing);
    }
    existing?.unsubscribe();
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
      executions: 1,
      unsubscribe: () => {},
    };
    this.followers.set(k, follower);
    // Subscribe before reading the position: a batch committed in between
    // wakes the follower, which then reads it from the log.
    follower.unsubscribe = this.signal.subscribe(key, () => this.wake(follower));
    await this.enqueue(follower, async () => {
      follower.cursor = await this.log.lastSeq(key);
    });
    return () => this.unfollow(k, follower);
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
    // The batch is committed whatever happens here: a failed read is logged and
    // retried at the next wake-up or commit (the cursor stays), never answered
    // to the caller as if the step had failed.
    return this.enqueue(follower, () => this.catchUp(follower, seq)).catch((error: unknown) =>
      reportReadFailure(follower, error),
    );
  }

  private wake(follower: Follower): void {
    if (follower.catchUpQueued) return;
    follower.catchUpQueued = true;
    this.enqueue(follower, async () => {
      follower.catchUpQueued = false;
      await this.catchUp(follower, undefined);
    }).catch((error: unknown) => reportReadFailure(follower, error));
  }

  /** Reads and delivers the log after the cursor (at least up to `upTo`, when given). */
  private async catchUp(follower: Follower, upTo: number | undefined): Promise<void> {
    for (;;) {
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

  private unfollow(k: string, follower: Follower): void {
    follower.executions -= 1;
    if (follower.executions > 0) return;
    follower.unsubscribe();
    if (this.followers.get(k) === follower) this.followers.delete(k);
  }
}

function reportReadFailure(follower: Follower, error: unknown): void {
  console.error(`task reminders: reading task ${follower.taskId}'s event log failed`, error);
}
