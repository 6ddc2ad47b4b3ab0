import type { TaskReminder } from '@a2a-reminders/proto';
import { TaskReminderSchema } from '@a2a-reminders/proto';
import { create } from '@bufbuild/protobuf';
import { DEFAULT_TTL_TURNS } from './limits.js';

/**
 * The fields of a TaskReminder (R9), without protobuf-es's message brand.
 * Every type that carries a reminder's content (StoredReminder,
 * SurfacedReminder) derives from it, and the functions below copy content
 * without naming a field, so a field added to the proto reaches the
 * in-memory store and the worker without being restated by hand. The
 * database store maps columns by hand (`rows.ts`): a new field that is
 * not `optional` fails to compile there until it has a column.
 */
export type ReminderFields = Omit<TaskReminder, '$typeName' | '$unknown'>;

/** A reminder's content once accepted: `ttlTurns` holds its effective value (R9: unset means 1). */
export type ReminderContent = Readonly<Omit<ReminderFields, 'ttlTurns'>> & {
  readonly ttlTurns: number;
};

/** A message's fields, without its brand (and without unknown fields, which are never kept). */
export function fieldsOf(reminder: TaskReminder): ReminderFields {
  const { $typeName: _typeName, $unknown: _unknown, ...fields } = reminder;
  return fields;
}

/** The content of a request's reminder, the default ttl applied (R9). */
export function acceptedContent(reminder: TaskReminder): ReminderContent {
  return { ...fieldsOf(reminder), ttlTurns: reminder.ttlTurns ?? DEFAULT_TTL_TURNS };
}

/**
 * The TaskReminder of a record (any value carrying reminder content, a
 * StoredReminder included): `create` copies exactly the schema's fields, so
 * the record's bookkeeping stays behind and an unset optional stays unset.
 */
export function reminderOf(content: ReminderContent): TaskReminder {
  return create(TaskReminderSchema, content);
}
