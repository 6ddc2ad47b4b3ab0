import type { StreamResponse } from '@a2a-js/sdk';
import { reminderEventsOf } from '@a2a-reminders/core';
import type { TaskReminderEvent } from '@a2a-reminders/proto';
import { WAIT_MS, within } from './wait.js';

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

  /** Resolves when `done()` holds; rejects if the stream ends first or the wait times out. */
  until(done: () => boolean, what: string, ms = WAIT_MS): Promise<void> {
    return new Promise<void>((resolve, reject) => {
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
        return false;
      };
      const timer = setTimeout(() => {
        finish();
        reject(
          new Error(`timed out after ${ms} ms waiting for ${what} (${this.items.length} items)`),
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
      check();
    });
  }

  /** Waits for at least `count` reminder events. */
  untilEvents(count: number): Promise<void> {
    return this.until(() => this.events().length >= count, `${count} reminder events`);
  }

  /** Waits for the server to end the stream (terminal state, INPUT_REQUIRED). */
  async untilEnded(): Promise<void> {
    await this.until(() => this.ended, 'the stream to end');
  }

  /** Cancels the stream (if still open) and waits for the reader to stop. */
  async close(): Promise<void> {
    this.controller.abort();
    await within(this.pump, 'the stream reader to stop');
  }

  private async run(stream: AsyncGenerator<StreamResponse, void, undefined>): Promise<void> {
    try {
      for await (const item of stream) {
        this.items.push(item);
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
