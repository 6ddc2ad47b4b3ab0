import type { Task } from '@a2a-js/sdk';
import { Role, SendMessageRequest, TaskState } from '@a2a-js/sdk';
import type { TaskStore, User } from '@a2a-js/sdk/server';
import { DefaultExecutionEventBus, RequestContext, ServerCallContext } from '@a2a-js/sdk/server';
import type { ReminderService, ReminderStoreKey } from '@a2a-reminders/core';
import { textMessage } from '@a2a-reminders/core';

/** What {@link endAbandonedTask} needs besides the task's key. */
export interface EndAbandonedTaskOptions {
  /** The SDK TaskStore the worker's request handler uses. */
  readonly taskStore: TaskStore;
  readonly reminders: Pick<ReminderService, 'endTask'>;
  /** The FAILED status message's text: why the task ended, and what the caller can do. */
  readonly reason: string;
  /**
   * The call context under which the task's stores find it. Default: the
   * key's tenant and a user named after the key's owner, which is right for
   * the SDK's default owner resolver (`resolveUserScope`, the user's name);
   * a worker with another resolver passes the inverse here.
   */
  readonly contextOf?: (key: ReminderStoreKey) => ServerCallContext;
  /** Clock for the status timestamp, for tests. */
  readonly now?: () => Date;
}

/** States in which an execution was running the task, not waiting on the caller. */
const RUNNING_STATES: ReadonlySet<TaskState> = new Set([
  TaskState.TASK_STATE_SUBMITTED,
  TaskState.TASK_STATE_WORKING,
]);

/** The stored owner a key names, as a user the default owner resolver maps back to it. */
class StoredOwner implements User {
  constructor(readonly userName: string) {}
  get isAuthenticated(): boolean {
    return false;
  }
}

/**
 * Ends a task whose execution no process runs any more (its worker crashed,
 * or its replica's lease expired, R53), so it does not stay WORKING forever
 * with live reminders. If the task is still SUBMITTED or WORKING, its
 * reminders end first (R27: DROPPED if never surfaced, EXPIRED if they
 * were), then the task is saved FAILED with `reason` as an agent message in
 * its status. Returns whether it ended the task: false when it is missing
 * or no longer running.
 *
 * The reminder events go to a bus nobody reads: no subscriber of this
 * process follows the task. They are in the store all the same: the records
 * carry the fates (ListTaskReminders), and with replicas the events are
 * delivered from the store's event log to whichever replica holds the
 * task's streams (R52). Both steps are idempotent, so a crash in between is
 * repaired by running this again.
 */
export async function endAbandonedTask(
  key: ReminderStoreKey,
  options: EndAbandonedTaskOptions,
): Promise<boolean> {
  const context = (options.contextOf ?? storedOwnerContext)(key);
  const task = await options.taskStore.load(key.taskId, context);
  if (task?.status === undefined || !RUNNING_STATES.has(task.status.state)) return false;
  const requestContext = new RequestContext(
    SendMessageRequest.fromJSON({
      message: { messageId: 'abandoned', role: 'ROLE_USER', parts: [] },
    }),
    task.id,
    task.contextId,
    context,
    task,
  );
  await options.reminders.endTask(
    requestContext,
    new DefaultExecutionEventBus(),
    TaskState.TASK_STATE_FAILED,
  );
  const at = (options.now ?? (() => new Date()))();
  await options.taskStore.save(failed(task, at, options.reason), context);
  return true;
}

function storedOwnerContext(key: ReminderStoreKey): ServerCallContext {
  return new ServerCallContext({
    user: new StoredOwner(key.owner),
    ...(key.tenant === '' ? {} : { tenant: key.tenant }),
    requestedVersion: '1.0',
  });
}

function failed(task: Task, at: Date, reason: string): Task {
  return {
    ...task,
    status: {
      state: TaskState.TASK_STATE_FAILED,
      timestamp: at.toISOString(),
      message: textMessage(Role.ROLE_AGENT, { taskId: task.id, contextId: task.contextId }, reason),
    },
  };
}
