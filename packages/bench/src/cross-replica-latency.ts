import type { AgentConnection } from '@a2a-reminders/client';
import { connectToAgent } from '@a2a-reminders/client';
import { reminderAgentExtension, reminderEventsOf, withTaskReminders } from '@a2a-reminders/core';
import { benchAgentCard } from './bench-card.js';
import { injectReminderJson } from './inject-request.js';
import { jsonRpc } from './json-rpc-fetch.js';

/** One inject's timings, in ms: to its event on the running replica's stream. */
export interface LatencySample {
  /** From the inject's response received (the store committed it) to the event. */
  readonly fromResponse: number;
  /** From the inject sent to the event. */
  readonly fromSend: number;
}

export interface LatencyResult {
  /** Injected on the other replica: commit, NOTIFY, catch-up read, bus, stream (R52). */
  readonly cross: LatencySample[];
  /** Injected on the running replica itself, for context: its bus directly. */
  readonly local: LatencySample[];
}

/** Time each event arrives on the stream, keyed by what it says (`displaced:<reminder id>`). */
class StreamArrivals {
  private readonly seen = new Map<string, number>();
  private readonly waiters = new Map<string, (ms: number) => void>();

  arrived(key: string, ms: number): void {
    this.seen.set(key, ms);
    this.waiters.get(key)?.(ms);
    this.waiters.delete(key);
  }

  /** Resolves with the arrival time; the deadline only guards against a lost event. */
  when(key: string, deadlineMs: number): Promise<number> {
    const ms = this.seen.get(key);
    if (ms !== undefined) return Promise.resolve(ms);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${key} did not reach the stream within ${deadlineMs} ms`)),
        deadlineMs,
      );
      this.waiters.set(key, (at) => {
        clearTimeout(timer);
        resolve(at);
      });
    });
  }
}

/**
 * The stock SDK client on the replica's JSON-RPC interface. No card fetch:
 * the bench server serves none, so the bench card on the replica's port,
 * advertising the extension as the server's own card does.
 */
function connect(httpPort: number): Promise<AgentConnection> {
  const card = withTaskReminders(benchAgentCard(`http://127.0.0.1:${httpPort}`), {
    agentExtension: () => reminderAgentExtension(),
  });
  return connectToAgent(card, { binding: 'jsonrpc' });
}

/**
 * The cross-replica latency of README, Replicas: a SubscribeToTask stream
 * (the stock SDK client, JSON-RPC, SSE) is open on replica A, which runs the
 * task's execution; each inject uses one dedupe key, so it displaces the
 * previous reminder and that DISPLACED event is what the stream must show.
 * Injects alternate between replica B (the measured path) and A (context),
 * one at a time on an otherwise idle pair, `samples` of each.
 */
export async function crossReplicaLatency(opts: {
  readonly runnerPort: number;
  readonly otherPort: number;
  readonly taskId: string;
  readonly samples: number;
}): Promise<LatencyResult> {
  const runner = await connect(opts.runnerPort);
  const arrivals = new StreamArrivals();
  const controller = new AbortController();
  let opened: () => void = () => {};
  const open = new Promise<void>((resolve) => {
    opened = resolve;
  });
  const stream = runner.client.resubscribeTask(
    { tenant: '', id: opts.taskId },
    runner.requestOptions(controller.signal),
  );
  let streamError: unknown;
  const reading = (async () => {
    for await (const item of stream) {
      const at = performance.now();
      // The first item is the task's snapshot: from here on no event is missed.
      opened();
      for (const event of reminderEventsOf(item)) {
        arrivals.arrived(`${event.event.case}:${event.reminderId}`, at);
      }
    }
  })().catch((error: unknown) => {
    if (!controller.signal.aborted) streamError = error;
  });
  const ended = reading.then(() => {
    throw new Error(`the stream on replica A ended early: ${String(streamError ?? 'no error')}`);
  });
  ended.catch(() => {});
  await Promise.race([open, ended]);

  const inject = (port: number, id: string) =>
    jsonRpc(port, 'InjectTaskReminder', injectReminderJson(opts.taskId, id, 'displacing'));
  const result: LatencyResult = { cross: [], local: [] };
  try {
    let previous = `latency-${process.pid}-0`;
    await inject(opts.otherPort, previous);
    for (let i = 1; i <= 2 * opts.samples; i += 1) {
      const cross = i % 2 === 1;
      const id = `latency-${process.pid}-${i}`;
      const sent = performance.now();
      await inject(cross ? opts.otherPort : opts.runnerPort, id);
      const answered = performance.now();
      const at = await Promise.race([arrivals.when(`displaced:${previous}`, 10_000), ended]);
      (cross ? result.cross : result.local).push({
        fromResponse: at - answered,
        fromSend: at - sent,
      });
      previous = id;
    }
  } finally {
    controller.abort();
    await reading;
    runner.close();
  }
  return result;
}
