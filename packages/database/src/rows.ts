import type {
  StoredForward,
  StoredReminder,
  StoredReminderState,
  TaskEndMark,
} from '@a2a-reminders/core';
import { provenanceFromText, provenanceText } from '@a2a-reminders/core';
import type { DbInteger, ReminderRow, ReminderTaskRow } from './schema.js';

type JsonObject = NonNullable<StoredReminder['metadata']>;

const STATES: ReadonlySet<string> = new Set<StoredReminderState>([
  'PENDING',
  'ACTIVE',
  'EXPIRED',
  'DISPLACED',
  'CANCELLED',
  'DROPPED',
]);

/** `pg` reads `bigint` as a string; every such value here is below 2^53. */
export function int(value: DbInteger): number {
  return typeof value === 'number' ? value : Number(value);
}

function optionalInt(value: DbInteger | null): number | undefined {
  return value === null ? undefined : int(value);
}

/** The record a row holds; a row no migration of this package could write is an error. */
export function reminderOfRow(row: ReminderRow): StoredReminder {
  if (!STATES.has(row.state)) {
    throw new Error(`reminder ${row.id} has an unknown state "${row.state}" in the database`);
  }
  const endTimeMs = optionalInt(row.end_time_ms);
  return {
    id: row.id,
    seq: int(row.seq),
    body: row.body,
    dedupeKey: row.dedupe_key,
    ttlTurns: row.ttl_turns,
    roleHint: row.role_hint,
    source: row.source,
    ...(row.metadata === null ? {} : { metadata: JSON.parse(row.metadata) as JsonObject }),
    state: row.state as StoredReminderState,
    createTimeMs: int(row.create_time_ms),
    ...(endTimeMs === undefined ? {} : { endTimeMs }),
    ...(row.first_turn === null ? {} : { firstTurn: row.first_turn }),
    turnsSurfaced: row.turns_surfaced,
    ...(row.displaced_by === null ? {} : { displacedBy: row.displaced_by }),
    acceptance: {
      displacedReminderIds: JSON.parse(row.accepted_displaced_ids) as string[],
      taskState: row.accepted_task_state,
    },
    ...(row.provenance === null ? {} : { provenance: provenanceFromText(row.provenance) }),
    ...(row.forwards === null
      ? {}
      : { forwards: JSON.parse(row.forwards) as readonly StoredForward[] }),
  };
}

/** The columns of a record, its position in the final order given by the transaction. */
export function rowOfReminder(
  taskKey: number,
  r: StoredReminder,
  finalSeq: number | null,
): ReminderRow {
  return {
    task_key: taskKey,
    id: r.id,
    seq: r.seq,
    final_seq: finalSeq,
    state: r.state,
    body: r.body,
    dedupe_key: r.dedupeKey,
    ttl_turns: r.ttlTurns,
    role_hint: r.roleHint,
    source: r.source,
    metadata: r.metadata === undefined ? null : JSON.stringify(r.metadata),
    create_time_ms: r.createTimeMs,
    end_time_ms: r.endTimeMs ?? null,
    first_turn: r.firstTurn ?? null,
    turns_surfaced: r.turnsSurfaced,
    displaced_by: r.displacedBy ?? null,
    accepted_displaced_ids: JSON.stringify(r.acceptance.displacedReminderIds),
    accepted_task_state: r.acceptance.taskState,
    provenance: r.provenance === undefined ? null : provenanceText(r.provenance),
    forwards: r.forwards === undefined ? null : JSON.stringify(r.forwards),
  };
}

/** The end mark a task row holds, if its reminders were ended (R27). */
export function endMarkOfRow(
  row: Pick<ReminderTaskRow, 'ended_task_state' | 'ended_time_ms' | 'purge_after_ms'>,
): TaskEndMark | undefined {
  if (row.ended_task_state === null) return undefined;
  return {
    taskState: row.ended_task_state,
    endTimeMs: int(row.ended_time_ms ?? 0),
    purgeAfterMs: int(row.purge_after_ms ?? 0),
  };
}
