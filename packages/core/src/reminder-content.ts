import type { ReminderProvenance, TaskReminder } from '@a2a-reminders/proto';
import { ReminderProvenanceSchema, TaskReminderSchema } from '@a2a-reminders/proto';
import { create, fromJsonString, toJsonString } from '@bufbuild/protobuf';
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

/**
 * The schema's field names, read once: content is copied field by field onto
 * fresh objects of one shape, which V8 handles far faster than an object rest
 * and spread (a new hidden class per call) or `create`'s reflection, on the
 * path of every inject.
 */
const REMINDER_FIELDS: readonly (keyof ReminderFields)[] = TaskReminderSchema.fields.map(
  (field) => field.localName as keyof ReminderFields,
);

/** Every field at its default, for content that lacks one. */
const EMPTY_REMINDER: TaskReminder = create(TaskReminderSchema);

/** A message's fields, without its brand (and without unknown fields, which are never kept). */
export function fieldsOf(reminder: TaskReminder): ReminderFields {
  const fields: Record<string, unknown> = {};
  for (const name of REMINDER_FIELDS) fields[name] = reminder[name];
  return fields as unknown as ReminderFields;
}

/** The content of a request's reminder, the default ttl applied (R9). */
export function acceptedContent(reminder: TaskReminder): ReminderContent {
  const content = fieldsOf(reminder) as {
    -readonly [K in keyof ReminderFields]: ReminderFields[K];
  };
  content.ttlTurns = reminder.ttlTurns ?? DEFAULT_TTL_TURNS;
  return content as ReminderContent;
}

/** R58: a reminder's provenance as ProtoJSON text, for a store that keeps it in a column. */
export function provenanceText(provenance: ReminderProvenance): string {
  return toJsonString(ReminderProvenanceSchema, provenance);
}

/** The provenance {@link provenanceText} wrote. */
export function provenanceFromText(text: string): ReminderProvenance {
  return fromJsonString(ReminderProvenanceSchema, text);
}

/**
 * The TaskReminder of a record (any value carrying reminder content, a
 * StoredReminder included): exactly the schema's fields, so the record's
 * bookkeeping stays behind and an unset optional stays unset; a field the
 * content lacks gets its default, as `create` would give it.
 */
export function reminderOf(content: ReminderContent): TaskReminder {
  const reminder: Record<string, unknown> = { $typeName: TaskReminderSchema.typeName };
  for (const name of REMINDER_FIELDS) reminder[name] = content[name] ?? EMPTY_REMINDER[name];
  return reminder as unknown as TaskReminder;
}
