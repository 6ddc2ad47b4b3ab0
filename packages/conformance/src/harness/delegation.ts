import type {
  ForwardingClient,
  ForwardRemindersOptions,
  ReminderClient,
  ReminderForwarding,
} from '@a2a-reminders/core';
import type { TaskReminderEvent, TaskReminderRecord } from '@a2a-reminders/proto';
import { ReminderState } from '@a2a-reminders/proto';
import type { StreamWatch } from './stream-watch.js';
import type { Wire } from './wire.js';
import { startWire } from './wire.js';

/**
 * A worker that delegates to the agent under test (spec §15): a second stack
 * (the parent agent, called in process) whose task forwards its reminders
 * into sub-tasks on the case's stack, through the arm's own client, so every
 * copy, cancel and list of the forwarder crosses the arm's binding.
 */
export interface Delegation extends AsyncDisposable {
  /** The parent agent, on the suite's store like the case's stack. */
  readonly parent: Wire;
  readonly parentTaskId: string;
  /** A stock-client stream on the parent task, open before any forwarding starts. */
  readonly parentWatch: StreamWatch;
  /** The sub-task on the case's stack that `start` forwards into unless told otherwise. */
  readonly subTaskId: string;
  /** The ids of the copies the forwarder injected through the arm's client, in order. */
  readonly sent: string[];
  /** Starts forwarding the parent task into a sub-task (R62); closed on dispose if not before. */
  start(options?: Partial<ForwardRemindersOptions>): ReminderForwarding;
  /** An inject on the parent task, through the parent's own rpc path. */
  inject(reminder: Parameters<ReminderClient['injectTaskReminder']>[0]['reminder']): Promise<void>;
  /** The original's record on the parent task. */
  record(id: string): Promise<TaskReminderRecord>;
  /** Waits until the parent's stream carries `count` forward events. */
  untilForwards(count: number): Promise<void>;
  /**
   * Waits until a barrier published on the parent task's bus now reaches its
   * stream: every forward event published before it has arrived by then, so
   * a case can assert that no other did.
   */
  settled(): Promise<void>;
}

/** The arm's client, counting what the forwarder sends through it. */
function counting(client: ReminderClient, sent: string[]): ForwardingClient {
  return {
    injectTaskReminder: (request, call) => {
      sent.push(request.reminder?.id ?? '');
      return client.injectTaskReminder(request, call);
    },
    cancelTaskReminder: (request, call) => client.cancelTaskReminder(request, call),
    listTaskReminders: (request, call) => client.listTaskReminders(request, call),
  };
}

export async function delegation(wire: Wire): Promise<Delegation> {
  const parent = await startWire('direct');
  const forwardings: ReminderForwarding[] = [];
  try {
    const parentTaskId = await parent.tasks.create();
    const parentWatch = await parent.tasks.subscribe(parentTaskId);
    const subTaskId = await wire.tasks.create();
    const sent: string[] = [];
    const client = counting(wire.client, sent);
    return {
      parent,
      parentTaskId,
      parentWatch,
      subTaskId,
      sent,
      start(options = {}) {
        const execution = parent.stack.executor.execution(parentTaskId);
        const forwarding = parent.reminders.forwardReminders(
          execution.requestContext,
          execution.bus,
          { client, taskId: subTaskId, ...options },
        );
        forwardings.push(forwarding);
        return forwarding;
      },
      async inject(reminder) {
        await parent.client.injectTaskReminder({ taskId: parentTaskId, reminder });
      },
      async record(id) {
        const { reminders } = await parent.client.listTaskReminders({ taskId: parentTaskId });
        const found = reminders.find((r) => r.reminder?.id === id);
        if (found === undefined) throw new Error(`the parent task has no record ${id}`);
        return found;
      },
      untilForwards(count) {
        return parentWatch.until(
          () => forwardsOf(parentWatch.events()).length >= count,
          `${count} forward events on the parent's stream`,
        );
      },
      async settled() {
        const artifactId = parent.stack.executor.barrier(parentTaskId);
        await parentWatch.until(
          () =>
            parentWatch.items.some(
              (item) =>
                item.payload?.$case === 'artifactUpdate' &&
                item.payload.value.artifact?.artifactId === artifactId,
            ),
          `barrier ${artifactId} on the parent's stream`,
        );
      },
      async [Symbol.asyncDispose]() {
        // A case closes its forwardings itself to see their errors; these are leftovers.
        await Promise.allSettled(forwardings.map((f) => f.close()));
        await parent[Symbol.asyncDispose]();
      },
    };
  } catch (error) {
    await parent[Symbol.asyncDispose]();
    throw error;
  }
}

/** The forward events among `events`, as `reminderId:STATE` or `reminderId:REFUSAL` (R63). */
export function forwardsOf(events: readonly TaskReminderEvent[]): string[] {
  return events.flatMap((e) =>
    e.event.case === 'forward'
      ? [`${e.reminderId}:${e.event.value.refusal || stateName(e.event.value.state)}`]
      : [],
  );
}

/** `PENDING`, `CANCELLED`…: a state as the forward summaries spell it. */
export function stateName(state: ReminderState): string {
  return ReminderState[state] ?? String(state);
}
