import type { JsonObject } from '@bufbuild/protobuf';
import type {
  ReminderAcceptance,
  ReminderWrite,
  StoredForward,
  StoredReminder,
  StoredReminderState,
} from './store.js';

/** What a step changes in a record; every field it leaves out is kept. */
export interface RecordChange {
  readonly state?: StoredReminderState;
  readonly endTimeMs?: number;
  readonly firstTurn?: number;
  readonly turnsSurfaced?: number;
  readonly displacedBy?: string;
  readonly forwards?: readonly StoredForward[];
  /** Undefined keeps the record's own. */
  readonly metadata?: JsonObject | undefined;
  readonly acceptance?: ReminderAcceptance;
}

const NO_CHANGE: RecordChange = {};

type Writable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * The record `r` at sequence number `seq` with `change` applied, built as
 * one literal: a spread (`{ ...r, state }`) cost every displacement, turn and
 * store write a few µs per record (profiled), V8 copying records of many
 * shapes property by property. Optional bookkeeping is set only when it has
 * a value. The in-memory store's tests put a record with every field set
 * (`Required<StoredReminder>`), so a field added to StoredReminder fails them
 * until it is copied here.
 */
export function recordWith(
  r: ReminderWrite,
  seq: number,
  change: RecordChange = NO_CHANGE,
): StoredReminder {
  const copy: Writable<StoredReminder> = {
    id: r.id,
    body: r.body,
    dedupeKey: r.dedupeKey,
    ttlTurns: r.ttlTurns,
    roleHint: r.roleHint,
    source: r.source,
    metadata: change.metadata ?? r.metadata,
    provenance: r.provenance,
    seq,
    state: change.state ?? r.state,
    createTimeMs: r.createTimeMs,
    turnsSurfaced: change.turnsSurfaced ?? r.turnsSurfaced,
    acceptance: change.acceptance ?? r.acceptance,
  };
  const endTimeMs = change.endTimeMs ?? r.endTimeMs;
  if (endTimeMs !== undefined) copy.endTimeMs = endTimeMs;
  const firstTurn = change.firstTurn ?? r.firstTurn;
  if (firstTurn !== undefined) copy.firstTurn = firstTurn;
  const displacedBy = change.displacedBy ?? r.displacedBy;
  if (displacedBy !== undefined) copy.displacedBy = displacedBy;
  const forwards = change.forwards ?? r.forwards;
  if (forwards !== undefined) copy.forwards = forwards;
  return copy;
}
