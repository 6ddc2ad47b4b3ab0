// A small reference model of the reminder rules (docs/extension-spec.md
// R12–R27, R34), written from the spec and sharing no code with the service:
// the model-based property test (properties.test.ts) runs the same commands on
// this model and on the real service and compares every answer, event and
// listing exactly.

import type { JsonObject } from '@bufbuild/protobuf';

export type ModelState = 'PENDING' | 'ACTIVE' | 'EXPIRED' | 'DISPLACED' | 'CANCELLED' | 'DROPPED';

export type ModelErrorCode =
  | 'TASK_TERMINAL'
  | 'REMINDER_ID_CONFLICT'
  | 'REMINDER_QUOTA_EXCEEDED'
  | 'REMINDER_NOT_FOUND'
  | 'REMINDER_NOT_LIVE';

export interface ModelLimits {
  /** R17. */
  readonly maxLive: number;
  /** R48: most final records retained per task (`Infinity`: no cap). */
  readonly maxFinal: number;
}

/** What a caller sends; `ttlTurns` undefined means unset (R9: effective 1). */
export interface ModelContent {
  readonly id: string;
  readonly body: string;
  readonly dedupeKey: string;
  readonly ttlTurns: number | undefined;
  readonly metadata: JsonObject | undefined;
}

export interface ModelRecord {
  readonly content: ModelContent;
  /** Effective ttlTurns. */
  readonly ttl: number;
  state: ModelState;
  readonly createTimeMs: number;
  endTimeMs: number | undefined;
  firstTurn: number | undefined;
  turnsSurfaced: number;
  displacedBy: string | undefined;
  /** What the accepting answer said beyond the record (R13 replays it). */
  readonly displacedAtAcceptance: readonly string[];
  /** The task's turn number when it was accepted (R20 counts from the next one). */
  readonly acceptedAtTurn: number;
  /** Distinguishes a re-accepted id (after a purge, R48) from its predecessor. */
  readonly instance: number;
  /** The order in which the task's records became final (R48 purges the lowest first). */
  finalOrder: number | undefined;
}

export interface ModelTask {
  turn: number;
  ended: boolean;
  /** Retained records, acceptance order (R34). */
  records: ModelRecord[];
  /** How many of its records became final so far. */
  finals: number;
}

export type ModelEvent =
  | { readonly kind: 'emitted'; readonly r: ModelRecord; turn: number; turnsRemaining: number }
  | { readonly kind: 'displaced'; readonly r: ModelRecord; displacedBy: string }
  | {
      readonly kind: 'expired';
      readonly r: ModelRecord;
      lastTurn: number;
      turnsSurfaced: number;
      taskEnded: boolean;
    }
  | { readonly kind: 'cancelled'; readonly r: ModelRecord; turnsSurfaced: number }
  | { readonly kind: 'dropped'; readonly r: ModelRecord; taskState: string };

export type ModelResult<T> =
  | { readonly ok: T; readonly events: readonly ModelEvent[] }
  | { readonly error: ModelErrorCode };

export interface ModelSurfaced {
  readonly id: string;
  readonly turnsRemaining: number;
  readonly firstSurfacing: boolean;
}

export function isLive(state: ModelState): boolean {
  return state === 'PENDING' || state === 'ACTIVE';
}

/** R13: equal content, ttl by its effective value, metadata deep-equal whatever the key order. */
export function sameContent(a: ModelContent, b: ModelContent): boolean {
  return (
    a.id === b.id &&
    a.body === b.body &&
    a.dedupeKey === b.dedupeKey &&
    (a.ttlTurns ?? 1) === (b.ttlTurns ?? 1) &&
    canonical(a.metadata) === canonical(b.metadata)
  );
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

export class ReminderModel {
  readonly tasks = new Map<string, ModelTask>();
  private instances = 0;

  constructor(
    readonly limits: ModelLimits,
    taskIds: readonly string[],
  ) {
    for (const id of taskIds) this.tasks.set(id, { turn: 0, ended: false, records: [], finals: 0 });
  }

  task(taskId: string): ModelTask {
    const task = this.tasks.get(taskId);
    if (task === undefined) throw new Error(`model: unknown task ${taskId}`);
    return task;
  }

  /** R13, R14, R12, R15–R17 in the order the spec gives them precedence. */
  inject(
    taskId: string,
    content: ModelContent,
    nowMs: number,
  ): ModelResult<{ record: ModelRecord; replay: boolean }> {
    const task = this.task(taskId);
    const existing = task.records.find((r) => r.content.id === content.id);
    if (existing !== undefined) {
      if (sameContent(existing.content, content)) {
        return { ok: { record: existing, replay: true }, events: [] };
      }
      return { error: 'REMINDER_ID_CONFLICT' };
    }
    if (task.ended) return { error: 'TASK_TERMINAL' };
    const displaced =
      content.dedupeKey === ''
        ? []
        : task.records.filter((r) => isLive(r.state) && r.content.dedupeKey === content.dedupeKey);
    const live = task.records.filter((r) => isLive(r.state)).length;
    if (live - displaced.length >= this.limits.maxLive) return { error: 'REMINDER_QUOTA_EXCEEDED' };
    const events: ModelEvent[] = [];
    for (const d of displaced) {
      finish(task, d, 'DISPLACED', nowMs);
      d.displacedBy = content.id;
      events.push({ kind: 'displaced', r: d, displacedBy: content.id });
    }
    this.instances += 1;
    const record: ModelRecord = {
      content,
      ttl: content.ttlTurns ?? 1,
      state: 'PENDING',
      createTimeMs: nowMs,
      endTimeMs: undefined,
      firstTurn: undefined,
      turnsSurfaced: 0,
      displacedBy: undefined,
      displacedAtAcceptance: displaced.map((d) => d.content.id),
      acceptedAtTurn: task.turn,
      instance: this.instances,
      finalOrder: undefined,
    };
    task.records.push(record);
    this.purge(task);
    return { ok: { record, replay: false }, events };
  }

  /** R19–R22; R27: after the end no turn surfaces anything or counts. */
  turn(
    taskId: string,
    nowMs: number,
  ): ModelResult<{ turn: number; surfaced: readonly ModelSurfaced[] }> {
    const task = this.task(taskId);
    if (task.ended) return { ok: { turn: task.turn, surfaced: [] }, events: [] };
    task.turn += 1;
    const events: ModelEvent[] = [];
    const surfaced: ModelSurfaced[] = [];
    for (const r of task.records) {
      if (!isLive(r.state)) continue;
      if (r.turnsSurfaced === r.ttl) {
        finish(task, r, 'EXPIRED', nowMs);
        events.push({
          kind: 'expired',
          r,
          lastTurn: task.turn - 1,
          turnsSurfaced: r.turnsSurfaced,
          taskEnded: false,
        });
        continue;
      }
      const first = r.state === 'PENDING';
      r.state = 'ACTIVE';
      r.firstTurn ??= task.turn;
      r.turnsSurfaced += 1;
      const turnsRemaining = r.ttl - r.turnsSurfaced;
      if (first) events.push({ kind: 'emitted', r, turn: task.turn, turnsRemaining });
      surfaced.push({ id: r.content.id, turnsRemaining, firstSurfacing: first });
    }
    this.purge(task);
    return { ok: { turn: task.turn, surfaced }, events };
  }

  /** R23–R26. */
  cancel(taskId: string, id: string, nowMs: number): ModelResult<ModelRecord> {
    const task = this.task(taskId);
    const r = task.records.find((x) => x.content.id === id);
    if (r === undefined) return { error: 'REMINDER_NOT_FOUND' };
    if (r.state === 'CANCELLED') return { ok: r, events: [] };
    if (!isLive(r.state)) return { error: 'REMINDER_NOT_LIVE' };
    finish(task, r, 'CANCELLED', nowMs);
    const events: ModelEvent[] = [{ kind: 'cancelled', r, turnsSurfaced: r.turnsSurfaced }];
    this.purge(task);
    return { ok: r, events };
  }

  /** R27: idempotent. */
  end(taskId: string, taskState: string, nowMs: number): ModelResult<null> {
    const task = this.task(taskId);
    if (task.ended) return { ok: null, events: [] };
    task.ended = true;
    const events: ModelEvent[] = [];
    for (const r of task.records) {
      if (r.state === 'PENDING') {
        finish(task, r, 'DROPPED', nowMs);
        events.push({ kind: 'dropped', r, taskState });
      } else if (r.state === 'ACTIVE') {
        finish(task, r, 'EXPIRED', nowMs);
        events.push({
          kind: 'expired',
          r,
          lastTurn: (r.firstTurn ?? 0) + r.turnsSurfaced - 1,
          turnsSurfaced: r.turnsSurfaced,
          taskEnded: r.turnsSurfaced < r.ttl,
        });
      }
    }
    this.purge(task);
    return { ok: null, events };
  }

  /**
   * R48: at most `maxFinal` final records stay; those that became final
   * first go first, a live one never.
   */
  private purge(task: ModelTask): void {
    const cap = this.limits.maxFinal;
    const finals = task.records
      .filter((r) => !isLive(r.state))
      .sort((a, b) => (a.finalOrder ?? 0) - (b.finalOrder ?? 0));
    const purged = new Set(finals.slice(0, Math.max(0, finals.length - cap)));
    task.records = task.records.filter((r) => !purged.has(r));
  }
}

function finish(task: ModelTask, r: ModelRecord, state: ModelState, nowMs: number): void {
  r.state = state;
  r.endTimeMs = nowMs;
  task.finals += 1;
  r.finalOrder = task.finals;
}
