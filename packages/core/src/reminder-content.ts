import type { ReminderProvenance, TaskReminder } from '@a2a-reminders/proto';
import { ReminderProvenanceSchema, TaskReminderSchema } from '@a2a-reminders/proto';
import { fromJsonString, toJsonString } from '@bufbuild/protobuf';
import { DEFAULT_TTL_TURNS } from './limits.js';
import type { ReminderAcceptance, ReminderWrite } from './store.js';

/**
 * The fields of a TaskReminder (R9), without protobuf-es's message brand.
 * Every type that carries a reminder's content (StoredReminder,
 * SurfacedReminder) derives from it. The copies below name every field in
 * a literal checked against the type, so a field added to the proto fails
 * to compile here until they carry it; the turn's copy (turns.ts) reads the
 * schema's field list. The database store maps columns by hand (`rows.ts`):
 * a new field that is not `optional` fails to compile there until it has a
 * column.
 */
export type ReminderFields = Omit<TaskReminder, '$typeName' | '$unknown'>;

/** A reminder's content once accepted: `ttlTurns` holds its effective value (R9: unset means 1). */
export type ReminderContent = Readonly<Omit<ReminderFields, 'ttlTurns'>> & {
  readonly ttlTurns: number;
};

/**
 * Every field of ReminderFields, none optional: a literal checked against it
 * names them all, so a field added to the proto fails to compile here until
 * the copies below carry it (the tests walk the schema's field list too).
 */
type EveryReminderField = { [K in keyof ReminderFields]-?: ReminderFields[K] | undefined };

/**
 * The record of a reminder just accepted: its content, the default ttl
 * applied (R9), without the message brand or unknown fields (never kept),
 * and the bookkeeping of a PENDING record. One literal of one shape: on the
 * path of every inject, a copy keyed by the schema's field names cost
 * megamorphic property accesses, and a spread of the content into the
 * record some 4 µs (profiled), V8 copying it property by property.
 * `predecessor`: the reminder it displaces (R16). Its strings that are equal
 * are kept instead of the request's copies, so in the in-memory store a
 * monitor that keeps firing holds one copy of its key, source, body and role
 * hint across the records a task retains (R48), and the request's copies die
 * young instead of living on in the heap's old generation.
 */
export function pendingRecord(
  reminder: TaskReminder,
  createTimeMs: number,
  acceptance: ReminderAcceptance,
  predecessor?: ReminderContent,
): ReminderWrite {
  return {
    id: reminder.id,
    body: shared(reminder.body, predecessor?.body),
    dedupeKey: shared(reminder.dedupeKey, predecessor?.dedupeKey),
    ttlTurns: reminder.ttlTurns ?? DEFAULT_TTL_TURNS,
    roleHint: shared(reminder.roleHint, predecessor?.roleHint),
    source: shared(reminder.source, predecessor?.source),
    metadata: reminder.metadata,
    provenance: reminder.provenance,
    state: 'PENDING',
    createTimeMs,
    turnsSurfaced: 0,
    acceptance,
  } satisfies EveryReminderField & ReminderWrite;
}

/** `value`, or the equal string `other` already held (see {@link pendingRecord}). */
function shared(value: string, other: string | undefined): string {
  return other === value ? other : value;
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
 * bookkeeping stays behind and an unset optional stays unset; a string the
 * content lacks (a row of an older schema) gets its default, as `create`
 * would give it.
 */
export function reminderOf(content: ReminderContent): TaskReminder {
  return {
    $typeName: TaskReminderSchema.typeName,
    id: content.id ?? '',
    body: content.body ?? '',
    dedupeKey: content.dedupeKey ?? '',
    ttlTurns: content.ttlTurns,
    roleHint: content.roleHint ?? '',
    source: content.source ?? '',
    metadata: content.metadata,
    provenance: content.provenance,
  } satisfies EveryReminderField & Pick<TaskReminder, '$typeName'>;
}
