import type { TaskState } from '@a2a-js/sdk';
import type { ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { resolveUserScope } from '@a2a-js/sdk/server';
import { reminderAgentExtension } from './agent-card.js';
import { BatchFreeTaskStore } from './batch-free-task-store.js';
import { ExecutorWrapper } from './executor-wrapper.js';
import { InMemoryReminderStore } from './in-memory-store.js';
import { LazySweeper } from './lazy-sweeper.js';
import { DEFAULT_DISPLACED_EVENT_DELAY_MS, defaultReminderLimits } from './limits.js';
import { BusRegistry, executionFallback } from './publisher.js';
import { ReminderForwarder } from './reminder-forwarding.js';
import { ReminderSteps } from './reminder-steps.js';
import { ReplicaDelivery } from './replica-delivery.js';
import { ReminderRpcs } from './rpc-handlers.js';
import type {
  ReminderService,
  ReminderServiceOptions,
  ReminderTurn,
  SurfacedReminder,
} from './service.js';
import type { ReminderStore } from './store.js';
import { TaskEnd } from './task-end.js';
import { takeTurn } from './turns.js';

/** The longest delay a Node timer takes (2^31 − 1 ms). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Creates the reminder service (issue 3; rules in docs/extension-spec.md):
 * the rpcs (rpc-handlers.ts), the executor wrapper (executor-wrapper.ts),
 * task ends (task-end.ts) and the runtime's turn boundaries (below), all over
 * one store and one set of buses (reminder-steps.ts).
 */
export function createReminderService(options: ReminderServiceOptions): ReminderService {
  const limits = { ...defaultReminderLimits, ...options.limits };
  const delayMs = options.displacedEventDelayMs ?? DEFAULT_DISPLACED_EVENT_DELAY_MS;
  // R57: a timer's range; beyond it Node fires at once.
  if (!Number.isInteger(delayMs) || delayMs < 0 || delayMs > MAX_TIMER_MS) {
    throw new RangeError(
      `displacedEventDelayMs must be an integer from 0 to ${MAX_TIMER_MS}, got ${delayMs}`,
    );
  }
  // R48: a count of records, so a whole number; 0 keeps no final record.
  const retained = limits.maxRetainedFinalRemindersPerTask;
  if (!Number.isInteger(retained) || retained < 0) {
    throw new RangeError(
      `maxRetainedFinalRemindersPerTask must be a whole number, got ${String(retained)}`,
    );
  }
  // R51: as many held events as the task can have records listed.
  const buses = new BusRegistry(
    limits.maxLiveRemindersPerTask + limits.maxRetainedFinalRemindersPerTask,
    // R57 does not apply with replicas: R52 delivers the log's batches as committed.
    options.changeSignal === undefined ? delayMs : 0,
  );
  // R60: a hop count, so a whole number; 0 refuses every forwarded reminder.
  if (!Number.isInteger(limits.maxForwardHops) || limits.maxForwardHops < 0) {
    throw new RangeError(
      `maxForwardHops must be a whole number, got ${String(limits.maxForwardHops)}`,
    );
  }
  const store: ReminderStore = options.store ?? new InMemoryReminderStore();
  let replicas: ReplicaDelivery | undefined;
  if (options.changeSignal !== undefined) {
    if (store.eventLog === undefined) {
      throw new Error('a change signal needs a reminder store with an event log (a SQL store)');
    }
    replicas = new ReplicaDelivery(store.eventLog, options.changeSignal, buses);
  }
  const steps = new ReminderSteps({
    store,
    limits,
    buses,
    replicas,
    ownerResolver: options.ownerResolver ?? resolveUserScope,
    now: options.now,
  });
  const taskEnd = new TaskEnd(steps, options.eventBusManager);
  const rpcs = new ReminderRpcs({
    steps,
    taskEnd,
    sweeper: new LazySweeper(steps),
    taskStore: options.taskStore,
    busManager: options.eventBusManager,
    requireAuthentication: options.requireAuthentication ?? false,
  });
  const executors = new ExecutorWrapper(steps, taskEnd);
  return {
    limits,
    injectTaskReminder: (request, context, readViolations) =>
      rpcs.injectTaskReminder(request, context, readViolations),
    listTaskReminders: (request, context, readViolations) =>
      rpcs.listTaskReminders(request, context, readViolations),
    cancelTaskReminder: (request, context, readViolations) =>
      rpcs.cancelTaskReminder(request, context, readViolations),
    beginTurn: (requestContext, eventBus) => beginTurn(steps, requestContext, eventBus),
    endTask: (requestContext, eventBus, finalState) =>
      endTask(steps, taskEnd, requestContext, eventBus, finalState),
    wrapExecutor: (executor) => executors.wrap(executor),
    wrapTaskStore: (taskStore) => new BatchFreeTaskStore(taskStore),
    publishDelayedEvents: () => buses.flushAllDelayed(),
    forwardReminders: (requestContext, eventBus, forwardOptions) => {
      // Follow the bus from now on, so `forward` updates repeat its status (R31), as turns do.
      steps.buses.stateOf(eventBus);
      return new ReminderForwarder(
        steps,
        steps.keyOf(requestContext.context, requestContext.taskId),
        eventBus,
        executionFallback(requestContext),
        forwardOptions,
      );
    },
    agentExtension: () => reminderAgentExtension(limits),
  };
}

/** What a boundary with nothing live yields; shared, so that boundary allocates no list. */
const NO_REMINDERS: readonly SurfacedReminder[] = Object.freeze([]);

/** Spec: Turns (R19–R22). The boundary's events go out as one status update on the bus. */
async function beginTurn(
  steps: ReminderSteps,
  requestContext: RequestContext,
  eventBus: ExecutionEventBus,
): Promise<ReminderTurn> {
  steps.buses.stateOf(eventBus);
  const taskId = requestContext.taskId;
  const key = steps.keyOf(requestContext.context, taskId);
  // R19: with nothing live and nothing queued on the task, the boundary is the
  // turn counter's increment alone, with no reminders and no events (R20–R22).
  const idleTurn = steps.store.takeIdleTurn?.(key);
  if (idleTurn !== undefined) return { taskId, turn: idleTurn, reminders: NO_REMINDERS };
  const outcome = await steps.commit(key, (tx) => takeTurn(tx, steps.nowMs(), steps.limits));
  await steps.deliver(key, eventBus, executionFallback(requestContext), outcome);
  return { taskId, turn: outcome.result.turn, reminders: outcome.result.reminders };
}

/** Spec: Task end (R27), for runtimes that publish the terminal status themselves. */
async function endTask(
  steps: ReminderSteps,
  taskEnd: TaskEnd,
  requestContext: RequestContext,
  eventBus: ExecutionEventBus,
  finalState: TaskState,
): Promise<void> {
  await taskEnd.endReminders(
    steps.keyOf(requestContext.context, requestContext.taskId),
    finalState,
    eventBus,
    executionFallback(requestContext),
  );
}
