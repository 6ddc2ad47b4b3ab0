import { reminderEventsOf, reminderPages } from '@a2a-reminders/core';
import type { ListTaskRemindersResponse, TaskReminderRecord } from '@a2a-reminders/proto';
import {
  CancelTaskReminderResponseSchema,
  InjectTaskReminderResponseSchema,
  ListTaskRemindersResponseSchema,
} from '@a2a-reminders/proto';
import type { JsonObject } from '@bufbuild/protobuf';
import { create, toJson } from '@bufbuild/protobuf';
import type { CoordinatorCommand } from './cli-args.js';
import {
  describeRecord,
  describeReminderEvent,
  isTerminal,
  progressOf,
  taskStateName,
} from './format.js';
import { Timeline } from './timeline.js';
import { connectToWorker } from './worker-connection.js';

type Command<K extends CoordinatorCommand['kind']> = Extract<CoordinatorCommand, { kind: K }>;
type Write = (line: string) => void;

/** `inject`: one InjectTaskReminder call. */
export async function injectCommand(command: Command<'inject'>, write: Write): Promise<void> {
  const worker = await connectToWorker(command.connection);
  try {
    const { metadata, ...fields } = command.reminder;
    const response = await worker.reminders.injectTaskReminder({
      tenant: command.tenant,
      taskId: command.taskId,
      reminder: { ...fields, ...(metadata ? { metadata: metadata as JsonObject } : {}) },
    });
    if (command.json) {
      write(JSON.stringify(toJson(InjectTaskReminderResponseSchema, response), null, 2));
      return;
    }
    if (response.record) write(describeRecord(response.record));
    write(`task state: ${response.taskState}`);
    if (response.displacedReminderIds.length > 0) {
      write(`displaced: ${response.displacedReminderIds.join(', ')}`);
    }
  } finally {
    worker.close();
  }
}

/**
 * `list`: the reminders a task retains, with their states (R34). Follows
 * every page (R49), or prints the one page after `--page-token` and the
 * token of the next.
 */
export async function listCommand(command: Command<'list'>, write: Write): Promise<void> {
  const worker = await connectToWorker(command.connection);
  try {
    const request = {
      tenant: command.tenant,
      taskId: command.taskId,
      liveOnly: command.liveOnly,
      ...(command.pageSize === undefined ? {} : { pageSize: command.pageSize }),
    };
    let response: ListTaskRemindersResponse;
    if (command.pageToken !== undefined) {
      response = await worker.reminders.listTaskReminders({
        ...request,
        pageToken: command.pageToken,
      });
    } else {
      const reminders: TaskReminderRecord[] = [];
      for await (const page of reminderPages(worker.reminders, request)) {
        reminders.push(...page.reminders);
      }
      response = create(ListTaskRemindersResponseSchema, { reminders });
    }
    if (command.json) {
      write(JSON.stringify(toJson(ListTaskRemindersResponseSchema, response), null, 2));
      return;
    }
    const what = command.liveOnly ? 'live reminders' : 'reminders';
    if (response.reminders.length === 0) write(`task ${command.taskId} has no ${what}`);
    for (const record of response.reminders) write(describeRecord(record));
    if (response.nextPageToken !== '') write(`next page: --page-token ${response.nextPageToken}`);
  } finally {
    worker.close();
  }
}

/** `cancel`: one CancelTaskReminder call. */
export async function cancelCommand(command: Command<'cancel'>, write: Write): Promise<void> {
  const worker = await connectToWorker(command.connection);
  try {
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
  } finally {
    worker.close();
  }
}

/** `watch`: follows a task (SubscribeToTask) until it ends, printing progress and reminder events. */
export async function watchCommand(command: Command<'watch'>, write: Write): Promise<void> {
  const worker = await connectToWorker(command.connection);
  const timeline = new Timeline(command.connection.binding, write);
  try {
    const stream = worker.client.resubscribeTask(
      { tenant: command.tenant, id: command.taskId },
      worker.requestOptions(),
    );
    for await (const item of stream) {
      for (const event of reminderEventsOf(item)) {
        const { tag, text } = describeReminderEvent(event);
        timeline.line(tag, text);
      }
      const progress = progressOf(item);
      if (progress === undefined) continue;
      const state = taskStateName(progress.state);
      if (item.payload?.$case === 'task')
        timeline.line('subscribe', `task ${command.taskId} is ${state}`);
      else if (isTerminal(progress.state))
        timeline.line('state', `${state} ${progress.text}`.trim());
      else timeline.line('progress', progress.text);
    }
  } finally {
    worker.close();
  }
}
