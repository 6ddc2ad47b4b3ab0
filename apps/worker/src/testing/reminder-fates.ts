import type { ReminderClient } from '@a2a-reminders/core';
import { DEFAULT_TTL_TURNS, reminderPages } from '@a2a-reminders/core';
import type { TaskReminderEvent, TaskReminderRecord } from '@a2a-reminders/proto';
import {
  ReminderState,
  TaskReminderEventSchema,
  TaskReminderRecordSchema,
} from '@a2a-reminders/proto';
import type { JsonValue } from '@bufbuild/protobuf';
import { toJson } from '@bufbuild/protobuf';
import { expect } from 'vitest';
import type { Binding, Replica } from './replica-set.js';
import { BINDINGS } from './replica-set.js';

/** Final states, each announced by exactly one event (R18). */
const FINAL_STATE_OF_EVENT: Readonly<Record<string, ReminderState>> = {
  displaced: ReminderState.DISPLACED,
  expired: ReminderState.EXPIRED,
  cancelled: ReminderState.CANCELLED,
  dropped: ReminderState.DROPPED,
};

/** Every page of a task's records from one client (R49). */
export async function listAll(
  client: ReminderClient,
  taskId: string,
  liveOnly = false,
): Promise<TaskReminderRecord[]> {
  const records: TaskReminderRecord[] = [];
  for await (const page of reminderPages(client, { taskId, pageSize: 100, liveOnly })) {
    records.push(...page.reminders);
  }
  return records;
}

/** One replica's answer over one binding. */
export interface Listing {
  readonly from: `${string}/${Binding}`;
  readonly records: readonly TaskReminderRecord[];
}

/** The task's records listed from every given replica over every binding (R55). */
export async function listEverywhere(
  replicas: readonly Replica[],
  taskId: string,
  liveOnly = false,
): Promise<Listing[]> {
  const listings: Listing[] = [];
  for (const replica of replicas) {
    for (const binding of BINDINGS) {
      listings.push({
        from: `${replica.name}/${binding}`,
        records: await listAll(replica.reminders[binding], taskId, liveOnly),
      });
    }
  }
  return listings;
}

/** The records, after checking that every listing holds exactly these, field for field (R55). */
export function sameEverywhere(listings: readonly Listing[]): readonly TaskReminderRecord[] {
  const records = listings[0]?.records ?? [];
  for (const listing of listings) {
    // Named, so a difference says which replica and binding answered otherwise.
    expect({ from: listing.from, records: recordsJson(listing.records) }).toEqual({
      from: listing.from,
      records: recordsJson(records),
    });
  }
  return records;
}

/** Records as ProtoJSON, for comparing listings exactly. */
export function recordsJson(records: readonly TaskReminderRecord[]): JsonValue[] {
  return records.map((r) => toJson(TaskReminderRecordSchema, r));
}

/** Events as ProtoJSON, for comparing a stream with the log exactly. */
export function eventsJson(events: readonly TaskReminderEvent[]): JsonValue[] {
  return events.map((e) => toJson(TaskReminderEventSchema, e));
}

/** `PENDING`, `EXPIRED`, …: readable in failure output. */
export function stateName(state: ReminderState): string {
  return ReminderState[state] ?? String(state);
}

/**
 * What is wrong with one record on its own: a state that contradicts the
 * record's other fields (R18, R27, R34).
 */
export function recordProblems(record: TaskReminderRecord): string[] {
  const id = record.reminder?.id ?? '?';
  const problems: string[] = [];
  const surfaced = record.firstTurn !== undefined;
  const final = record.state !== ReminderState.PENDING && record.state !== ReminderState.ACTIVE;
  switch (record.state) {
    case ReminderState.PENDING:
    case ReminderState.DROPPED:
      if (surfaced) problems.push(`${id}: ${stateName(record.state)} but surfaced`);
      break;
    case ReminderState.ACTIVE:
    case ReminderState.EXPIRED:
      if (!surfaced) problems.push(`${id}: ${stateName(record.state)} but never surfaced`);
      break;
    case ReminderState.DISPLACED:
      if (record.displacedBy === '') problems.push(`${id}: DISPLACED without displacedBy`);
      break;
    case ReminderState.CANCELLED:
      break;
    default:
      problems.push(`${id}: state ${record.state}`);
  }
  if (final && record.endTime === undefined) problems.push(`${id}: final without endTime`);
  if (final && record.turnsRemaining !== 0) problems.push(`${id}: final with turns remaining`);
  return problems;
}

/**
 * What is wrong with a task's reminder events, read per reminder id in the
 * order given (R18, R21, R22, R27): at most one `emitted`, first; exactly one
 * final event when `allFinal`, at most one otherwise, and nothing after it;
 * `expired` only after `emitted`, `dropped` only without. With `records`,
 * every record must agree with its events (the state of the last one, the
 * first turn, displacedBy), and every id with events must be listed.
 */
export function fateProblems(
  events: readonly TaskReminderEvent[],
  options: { readonly allFinal: boolean; readonly records?: readonly TaskReminderRecord[] },
): string[] {
  const problems: string[] = [];
  const byId = new Map<string, TaskReminderEvent[]>();
  for (const e of events) {
    const list = byId.get(e.reminderId) ?? [];
    list.push(e);
    byId.set(e.reminderId, list);
  }
  const records = new Map((options.records ?? []).map((r) => [r.reminder?.id ?? '', r]));
  for (const [id, list] of byId) {
    const kinds = list.map((e) => e.event.case ?? '?');
    const emitted = list.filter((e) => e.event.case === 'emitted');
    const finals = list.filter((e) => e.event.case !== 'emitted');
    const shape = `${id}: events ${kinds.join(',')}`;
    if (emitted.length > 1 || (emitted.length === 1 && kinds[0] !== 'emitted')) {
      problems.push(`${shape}: emitted must come once, first`);
    }
    if (finals.length > 1) problems.push(`${shape}: more than one final event`);
    if (options.allFinal && finals.length === 0) problems.push(`${shape}: no final event`);
    const final = finals[0];
    if (final?.event.case === 'expired' && emitted.length === 0) {
      problems.push(`${shape}: expired but never emitted`);
    }
    if (final?.event.case === 'dropped' && emitted.length > 0) {
      problems.push(`${shape}: dropped after it was emitted`);
    }
    if (options.records !== undefined) {
      const record = records.get(id);
      if (record === undefined) problems.push(`${shape}: not listed`);
      else problems.push(...agreement(record, emitted[0], final));
    }
  }
  for (const [id, record] of records) {
    if (!byId.has(id)) problems.push(...agreement(record, undefined, undefined));
    problems.push(...recordProblems(record));
  }
  return problems;
}

/** Whether a listed record says what its events said. */
function agreement(
  record: TaskReminderRecord,
  emitted: TaskReminderEvent | undefined,
  final: TaskReminderEvent | undefined,
): string[] {
  const id = record.reminder?.id ?? '?';
  const ttl = record.reminder?.ttlTurns ?? DEFAULT_TTL_TURNS;
  const problems: string[] = [];
  const expected =
    final === undefined
      ? emitted === undefined
        ? ReminderState.PENDING
        : ReminderState.ACTIVE
      : (FINAL_STATE_OF_EVENT[final.event.case ?? ''] ?? ReminderState.UNSPECIFIED);
  if (record.state !== expected) {
    problems.push(`${id}: listed ${stateName(record.state)}, events say ${stateName(expected)}`);
  }
  if (emitted?.event.case === 'emitted') {
    const { turn, turnsRemaining } = emitted.event.value;
    if (record.firstTurn !== turn) {
      problems.push(`${id}: firstTurn ${record.firstTurn}, emitted at turn ${turn}`);
    }
    if (turnsRemaining !== ttl - 1) {
      problems.push(`${id}: emitted with ${turnsRemaining} turns remaining, ttlTurns ${ttl}`);
    }
  } else if (record.firstTurn !== undefined) {
    problems.push(`${id}: firstTurn ${record.firstTurn} but no emitted event`);
  }
  if (final?.event.case === 'displaced' && record.displacedBy !== final.event.value.displacedBy) {
    problems.push(
      `${id}: displacedBy ${record.displacedBy}, event says ${final.event.value.displacedBy}`,
    );
  }
  if (final?.event.case === 'expired') {
    const { lastTurn, turnsSurfaced, taskEnded } = final.event.value;
    // R22: used up its turns (taskEnded false); R27: the task ended while it had turns left.
    if (taskEnded !== turnsSurfaced < ttl) {
      problems.push(`${id}: expired taskEnded ${taskEnded} after ${turnsSurfaced}/${ttl} turns`);
    }
    // R20: surfaced on consecutive turns from the first.
    if (record.firstTurn !== undefined && lastTurn - record.firstTurn + 1 !== turnsSurfaced) {
      problems.push(
        `${id}: expired at turn ${lastTurn} after ${turnsSurfaced} turns from ${record.firstTurn}`,
      );
    }
  }
  return problems;
}
