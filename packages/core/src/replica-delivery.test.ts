import { TaskState } from '@a2a-js/sdk';
import type { AgentExecutionEvent } from '@a2a-js/sdk/server';
import { AgentEvent, DefaultExecutionEventBus } from '@a2a-js/sdk/server';
import type { TaskReminderEvent } from '@a2a-reminders/proto';
import { TaskReminderEventSchema } from '@a2a-reminders/proto';
import { create } from '@bufbuild/protobuf';
import { describe, expect, it, vi } from 'vitest';
import type { StatusFallback } from './publisher.js';
import { BusRegistry } from './publisher.js';
import { encodeEventBatch, ReplicaDelivery } from './replica-delivery.js';
import type {
  LoggedEventBatch,
  ReminderChangeSignal,
  ReminderEventLog,
  ReminderStoreKey,
} from './store.js';
import { reminderEventsOf } from './stream-events.js';

// R52, R54 at the unit level: the follower delivers batches in log order
// whoever committed them, never twice, never a silent one, and a failed log
// read neither fails the committing caller nor loses the batch.

const key: ReminderStoreKey = { tenant: '', owner: 'o', taskId: 't1' };
const fallback: StatusFallback = { contextId: 'c1', status: undefined, history: undefined };

function cancelled(id: string): TaskReminderEvent {
  return create(TaskReminderEventSchema, {
    reminderId: id,
    event: { case: 'cancelled', value: { turnsSurfaced: 0 } },
  });
}

/** A log other replicas append to, and a signal the test fires by hand. */
function fixture() {
  const batches: LoggedEventBatch[] = [];
  let failReads = 0;
  const log: ReminderEventLog = {
    lastSeq: async () => batches.length,
    after: async (_k, afterSeq, limit) => {
      if (failReads > 0) {
        failReads -= 1;
        throw new Error('connection reset');
      }
      return batches.filter((b) => b.seq > afterSeq).slice(0, limit);
    },
  };
  const wakes = new Set<() => void>();
  const signal: ReminderChangeSignal = {
    subscribe: (_k, wake) => {
      wakes.add(wake);
      return () => wakes.delete(wake);
    },
  };
  const bus = new DefaultExecutionEventBus();
  const seen: AgentExecutionEvent[] = [];
  bus.on('event', (e) => seen.push(e));
  const buses = new BusRegistry(100);
  // Listening from the start, as the service does when an execution starts (R31).
  buses.stateOf(bus);
  const delivery = new ReplicaDelivery(log, signal, buses);
  return {
    delivery,
    bus,
    wakes,
    /** Appends a batch as another replica's commit would; returns its position. */
    append(ids: string[]): { seq: number; events: TaskReminderEvent[] } {
      const events = ids.map(cancelled);
      const seq = batches.length + 1;
      batches.push({ seq, batch: encodeEventBatch(key.taskId, events) });
      return { seq, events };
    },
    failNextReads(n: number) {
      failReads = n;
    },
    wakeAll: () => {
      for (const w of wakes) w();
    },
    delivered: () => seen.flatMap((e) => reminderEventsOf(e).map((r) => r.reminderId)),
  };
}

async function started(f: ReturnType<typeof fixture>) {
  // A task event first, so the bus has a status to repeat (R31).
  f.bus.publish(
    AgentEvent.task({
      id: key.taskId,
      contextId: 'c1',
      status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: undefined },
      history: [],
      artifacts: [],
      metadata: undefined,
    }),
  );
  await f.delivery.follow(key, f.bus, fallback);
}

async function settle(f: ReturnType<typeof fixture>): Promise<void> {
  // Every queued step has run once a committed() of a delivered position resolves.
  await vi.waitFor(() => expect(f.delivery.follows(key)).toBe(true));
  await new Promise((r) => setTimeout(r, 0));
}

describe('replica delivery', () => {
  it('R52: skips batches committed before following, then delivers in log order', async () => {
    const f = fixture();
    f.append(['old']);
    await started(f);
    const fromElsewhere = f.append(['b1']);
    const ours = f.append(['a1']);
    // Our commit arrives before the other replica's wake-up: the gap is read first.
    await f.delivery.committed(key, ours.seq, ours.events, fallback);
    expect(f.delivered()).toEqual(['b1', 'a1']);
    // The late wake-up for b1 (and a duplicate) delivers nothing twice.
    f.wakeAll();
    f.wakeAll();
    await settle(f);
    expect(f.delivered()).toEqual(['b1', 'a1']);
    expect(fromElsewhere.seq).toBe(2);
  });

  it('R52: a batch next in line goes out at once, with no read', async () => {
    const f = fixture();
    await started(f);
    const ours = f.append(['a1']);
    f.failNextReads(1_000);
    await f.delivery.committed(key, ours.seq, ours.events, fallback);
    expect(f.delivered()).toEqual(['a1']);
  });

  it('R28: a silent batch advances the cursor and is never published', async () => {
    const f = fixture();
    await started(f);
    const quiet = f.append(['q1']);
    await f.delivery.committed(key, quiet.seq, quiet.events, fallback, false);
    const next = f.append(['n1']);
    f.wakeAll();
    await vi.waitFor(() => expect(f.delivered()).toEqual(['n1']));
    expect(next.seq).toBe(2);
  });

  it('R54: a read failing on every attempt does not fail the committing caller; a retry delivers', async () => {
    const f = fixture();
    await started(f);
    f.append(['b1']);
    const ours = f.append(['a1']);
    f.failNextReads(3);
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    await expect(
      f.delivery.committed(key, ours.seq, ours.events, fallback),
    ).resolves.toBeUndefined();
    expect(errors).toHaveBeenCalledOnce();
    expect(f.delivered()).toEqual([]);
    await vi.waitFor(() => expect(f.delivered()).toEqual(['b1', 'a1']), { timeout: 30_000 });
    errors.mockRestore();
  });

  it('R54: a failed read is retried on its own, with no further wake-up or commit', async () => {
    const f = fixture();
    await started(f);
    f.append(['b1']);
    f.failNextReads(2);
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    f.wakeAll();
    await vi.waitFor(() => expect(f.delivered()).toEqual(['b1']), { timeout: 30_000 });
    expect(errors).toHaveBeenCalledTimes(2);
    errors.mockRestore();
  });

  it('follows for as long as the bus lives, across executions, and stops when it finishes', async () => {
    const f = fixture();
    await started(f);
    // A second execution on the same bus (a follow-up after INPUT_REQUIRED) changes nothing.
    await f.delivery.follow(key, f.bus, fallback);
    expect(f.wakes.size).toBe(1);
    f.bus.finished();
    expect(f.delivery.follows(key)).toBe(false);
    expect(f.wakes.size).toBe(0);
  });

  it('stops following at a terminal status, even when the SDK never finishes the bus', async () => {
    const f = fixture();
    await started(f);
    f.bus.publish(
      AgentEvent.statusUpdate({
        taskId: key.taskId,
        contextId: 'c1',
        status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: undefined },
        metadata: undefined,
      }),
    );
    expect(f.delivery.follows(key)).toBe(false);
    expect(f.wakes.size).toBe(0);
  });

  it('follows after a transient failure to read the log position', async () => {
    const f = fixture();
    let failures = 1;
    const log: ReminderEventLog = {
      lastSeq: async () => {
        if (failures-- > 0) throw new Error('connection reset');
        return 0;
      },
      after: async () => [],
    };
    const signal: ReminderChangeSignal = { subscribe: () => () => {} };
    const delivery = new ReplicaDelivery(log, signal, new BusRegistry(1));
    await delivery.follow(key, f.bus, fallback);
    expect(delivery.follows(key)).toBe(true);
  });

  it('follows nothing when the log cannot be read at the start', async () => {
    const f = fixture();
    const log: ReminderEventLog = {
      lastSeq: async () => {
        throw new Error('connection reset');
      },
      after: async () => [],
    };
    const signal: ReminderChangeSignal = {
      subscribe: (_k, wake) => {
        f.wakes.add(wake);
        return () => f.wakes.delete(wake);
      },
    };
    const broken = new ReplicaDelivery(log, signal, new BusRegistry(1));
    await expect(broken.follow(key, f.bus, fallback)).rejects.toThrow('connection reset');
    expect(broken.follows(key)).toBe(false);
    expect(f.wakes.size).toBe(0);
  });
});
