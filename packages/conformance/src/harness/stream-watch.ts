import type { StreamResponse } from '@a2a-js/sdk';
import { reminderEventsOf } from '@a2a-reminders/core';
import { testAgentAckArtifactId } from '@a2a-reminders/core/test-agent';
import type { TaskReminderEvent } from '@a2a-reminders/proto';
import { WAIT_MS, within } from './wait.js';

/**
 * Sends a settle barrier on the watched task (the test-agent contract's
 * `settle`) and returns the barrier artifact's id.
 */
export type SettleBarrier = () => Promise<string>;

/** Barrier artifacts of the test-agent contract: the kit's own traffic, not what a case observes. */
const BARRIER_PREFIX = testAgentAckArtifactId('');

/**
 * Collects what a stock SDK client stream (SubscribeToTask or
 * SendStreamingMessage) yields, and lets a case wait for what it expects to
 * observe, with a bounded timeout.
 */
export class StreamWatch {
  readonly items: StreamResponse[] = [];
  private ended = false;
  private failure: unknown;
  private readonly listeners = new Set<() => void>();
  private readonly pump: Promise<void>;
  /** Barrier artifacts the stream carried (kept out of `items`). */
  private readonly barriers = new Set<string>();
  private settleBarrier: SettleBarrier | undefined;

  constructor(
    stream: AsyncGenerator<StreamResponse, void, undefined>,
    private readonly controller: AbortController,
  ) {
    this.pump = this.run(stream);
  }

  /** Reminder event batches in arrival order, one per status update that carried one. */
  batches(): TaskReminderEvent[][] {
    return this.items.map((item) => reminderEventsOf(item)).filter((batch) => batch.length > 0);
  }

  events(): TaskReminderEvent[] {
    return this.batches().flat();
  }

  get closed(): boolean {
    return this.ended;
  }

  /** The error the stream ended with, if it failed. */
  get error(): unknown {
    return this.failure;
  }

  /**
   * As the kit (issue 15): a wait that does not hold at once sends a settle
   * barrier on the task. Everything the agent published before it comes
   * first on every stream of the task (R57 flushes delayed displacements
   * before it too), so a barrier that arrives while the wait still does not
   * hold fails the wait there and then, instead of at the hang guard.
   */
  useBarriers(settle: SettleBarrier): void {
    this.settleBarrier = settle;
  }

  /** Resolves when `done()` holds; rejects if the stream ends first or the wait times out. */
  until(done: () => boolean, what: string, ms = WAIT_MS): Promise<void> {
    return this.wait(done, what, ms, this.settleBarrier);
  }

  private wait(
    done: () => boolean,
    what: string,
    ms: number,
    settle: SettleBarrier | undefined,
  ): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let barrier: string | undefined;
      let barrierRefused = '';
      const check = (): boolean => {
        if (done()) {
          finish();
          resolve();
          return true;
        }
        if (this.ended) {
          finish();
          const why = this.failure === undefined ? '' : `: ${String(this.failure)}`;
          reject(new Error(`stream ended before ${what} (${this.items.length} items)${why}`));
          return true;
        }
        if (barrier !== undefined && this.barriers.has(barrier)) {
          finish();
          reject(
            new Error(
              `the stream carried a settle barrier sent after the cause, but not ${what} (${this.items.length} items)`,
            ),
          );
          return true;
        }
        return false;
      };
      const timer = setTimeout(() => {
        finish();
        reject(
          new Error(
            `timed out after ${ms} ms waiting for ${what} (${this.items.length} items)${barrierRefused}`,
          ),
        );
      }, ms);
      const listener = (): void => {
        check();
      };
      const finish = (): void => {
        clearTimeout(timer);
        this.listeners.delete(listener);
      };
      this.listeners.add(listener);
      if (!check() && settle !== undefined) {
        // A task that cannot settle (its execution ended) leaves the wait to the hang guard.
        settle().then(
          (id) => {
            barrier = id;
            check();
          },
          (error: unknown) => {
            barrierRefused = `; no settle barrier could be sent: ${String(error)}`;
          },
        );
      }
    });
  }

  /** Waits for at least `count` reminder events. */
  untilEvents(count: number): Promise<void> {
    return this.until(() => this.events().length >= count, `${count} reminder events`);
  }

  /** Waits for the server to end the stream (terminal state, INPUT_REQUIRED); no barrier can follow an end. */
  async untilEnded(): Promise<void> {
    await this.wait(() => this.ended, 'the stream to end', WAIT_MS, undefined);
  }

  /** Cancels the stream (if still open) and waits for the reader to stop. */
  async close(): Promise<void> {
    this.controller.abort();
    await within(this.pump, 'the stream reader to stop');
  }

  private async run(stream: AsyncGenerator<StreamResponse, void, undefined>): Promise<void> {
    try {
      for await (const item of stream) {
        const artifact =
          item.payload?.$case === 'artifactUpdate' ? item.payload.value.artifact : undefined;
        if (artifact?.artifactId.startsWith(BARRIER_PREFIX)) this.barriers.add(artifact.artifactId);
        else this.items.push(item);
        this.notify();
      }
    } catch (error) {
      if (!this.controller.signal.aborted) this.failure = error;
    } finally {
      this.ended = true;
      this.notify();
    }
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
