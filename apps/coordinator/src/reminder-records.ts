import type { ReminderCallOptions, ReminderClient } from '@a2a-reminders/core';
import { reminderPages } from '@a2a-reminders/core';
import type { ListTaskRemindersRequestSchema, TaskReminderRecord } from '@a2a-reminders/proto';
import type { MessageInitShape } from '@bufbuild/protobuf';

/** Every record ListTaskReminders returns for the request, following every page (R49). */
export async function listAllReminders(
  client: Pick<ReminderClient, 'listTaskReminders'>,
  request: MessageInitShape<typeof ListTaskRemindersRequestSchema>,
  options?: ReminderCallOptions,
): Promise<TaskReminderRecord[]> {
  const records: TaskReminderRecord[] = [];
  for await (const page of reminderPages(client, request, options)) records.push(...page.reminders);
  return records;
}
