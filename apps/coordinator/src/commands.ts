import { isTerminalState } from '@a2a-reminders/core';
import type { ListTaskRemindersResponse } from '@a2a-reminders/proto';
import {
  CancelTaskReminderResponseSchema,
  InjectTaskReminderResponseSchema,
  ListTaskRemindersResponseSchema,
} from '@a2a-reminders/proto';
import { create, toJson } from '@bufbuild/protobuf';
import type { CoordinatorCommand } from './cli-args.js';
import { followTask } from './demo-loop.js';
import { describeRecord, describeStatus, taskStateLabel } from './format.js';
import { pushWatchCommand } from './push-watch.js';
import { listAllReminders } from './reminder-records.js';
import { taskStateOf } from './stream-items.js';
import { Timeline } from './timeline.js';
import { withWorker } from './with-worker.js';

type Command<K extends CoordinatorCommand['kind']> = Extract<CoordinatorCommand, { kind: K }>;
type Write = (line: string) => void;

/** `inject`: one InjectTaskReminder call. */
export function injectCommand(command: Command<'inject'>, write: Write): Promise<void> {
  return withWorker(command.connection, async (worker) => {
    const response = await worker.reminders.injectTaskReminder({
      tenant: command.tenant,
      taskId: command.taskId,
      reminder: command.reminder,
    });
    if (command.json) {
      write(JSON.stringify(toJson(InjectTaskReminderResponseSchema, response), null, 2));
      return;
    }
    if (response.record) write(describeRecord(response.record));
    write(`task state: ${taskStateLabel(response.taskState)}`);
    if (response.displacedReminderIds.length > 0) {
      write(`displaced: ${response.displacedReminderIds.join(', ')}`);
    }
  });
}

/**
 * `list`: the reminders a task retains, with their states (R34). Follows
 * every page (R49), or prints the one page after `--page-token` and the
 * token of the next.
 */
export function listCommand(command: Command<'list'>, write: Write): Promise<void> {
  return withWorker(command.connection, async (worker) => {
    const request = {
      tenant: command.tenant,
      taskId: command.taskId,
      liveOnly: command.liveOnly,
      ...(command.pageSize === undefined ? {} : { pageSize: command.pageSize }),
    };
    const response: ListTaskRemindersResponse =
      command.pageToken !== undefined
        ? await worker.reminders.listTaskReminders({ ...request, pageToken: command.pageToken })
        : create(ListTaskRemindersResponseSchema, {
            reminders: await listAllReminders(worker.reminders, request),
          });
    if (command.json) {
      write(JSON.stringify(toJson(ListTaskRemindersResponseSchema, response), null, 2));
      return;
    }
    const what = command.liveOnly ? 'live reminders' : 'reminders';
    if (response.reminders.length === 0) write(`task ${command.taskId} has no ${what}`);
    for (const record of response.reminders) write(describeRecord(record));
    if (response.nextPageToken !== '') write(`next page: --page-token ${response.nextPageToken}`);
  });
}

/** `cancel`: one CancelTaskReminder call. */
export function cancelCommand(command: Command<'cancel'>, write: Write): Promise<void> {
  return withWorker(command.connection, async (worker) => {
    const response = await worker.reminders.cancelTaskReminder({
      tenant: command.tenant,
      taskId: command.taskId,
      reminderId: command.reminderId,
    });
    if (command.json) {
      write(JSON.stringify(toJson(CancelTaskReminderResponseSchema, response), null, 2));
      return;
    }
    if (response.record) write(describeRecord(response.record));
  });
}

/**
 * `watch`: follows a task (SubscribeToTask) until it ends, printing progress
 * and reminder events. A2A refuses to subscribe to a task that has already
 * ended; watch then prints the state it ended in, by name, from GetTask.
 */
export function watchCommand(command: Command<'watch'>, write: Write): Promise<void> {
  const { pushPort } = command;
  if (pushPort !== undefined) return pushWatchCommand({ ...command, pushPort }, write);
  return withWorker(command.connection, async (worker) => {
    const timeline = new Timeline(command.connection.binding, write);
    const id = { tenant: command.tenant, id: command.taskId };
    let opened = false;
    try {
      await followTask({
        items: worker.client.resubscribeTask(id, worker.requestOptions()),
        timeline,
        opened: (taskId, item) => {
          opened = true;
          timeline.line('subscribe', `task ${taskId} is ${taskStateLabel(taskStateOf(item))}`);
        },
      });
    } catch (error) {
      if (opened) throw error;
      // Whatever the refusal said, an ended task is answered with its end.
      const task = await worker.client.getTask(id, worker.requestOptions()).catch(() => undefined);
      const status = task?.status;
      if (!isTerminalState(status?.state)) throw error;
      timeline.line('state', `task ${command.taskId} had already ended: ${describeStatus(status)}`);
    }
  });
}
