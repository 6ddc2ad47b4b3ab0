import type { TaskReminderEvent } from '@a2a-reminders/proto';
import { TaskReminderSchema } from '@a2a-reminders/proto';
import { emittedEvent, expiredEvent } from './events.js';
import type { Outcome } from './lifecycle.js';
import type { ReminderLimits } from './limits.js';
import { recordWith } from './record-with.js';
import type { ReminderFields } from './reminder-content.js';
import type { SurfacedReminder } from './service.js';
import type { ReminderTransaction, StoredReminder } from './store.js';

export interface TurnResult {
  readonly turn: number;
  readonly reminders: readonly SurfacedReminder[];
}

type SurfacedField = Exclude<keyof ReminderFields, 'ttlTurns'>;

/**
 * The TaskReminder fields a surfaced reminder carries (all but the ttl, R20),
 * read off the schema so a field added to the proto reaches the worker
 * without being named here. Copied one by one onto a fresh object: an object
 * rest (`{ ttlTurns, ...content }`) spread again into a new literal costs
 * several µs per reminder, a new hidden class each time.
 */
const SURFACED_FIELDS: readonly SurfacedField[] = TaskReminderSchema.fields
  .map((field) => field.localName)
  .filter((name): name is SurfacedField => name !== 'ttlTurns');

/** A record's reminder as the worker receives it on this turn (R20). */
function surfacedOf(
  record: StoredReminder,
  turnsRemaining: number,
  firstSurfacing: boolean,
): SurfacedReminder {
  const surfaced: Record<string, unknown> = {};
  for (const name of SURFACED_FIELDS) {
    const value = record[name];
    // An unset optional field stays unset, as on the TaskReminder.
    if (value !== undefined) surfaced[name] = value;
  }
  surfaced.turnsRemaining = turnsRemaining;
  surfaced.firstSurfacing = firstSurfacing;
  return surfaced as unknown as SurfacedReminder;
}

/**
 * R19–R22: takes the next turn boundary in a store transaction. Reminders
 * whose turns are used up leave (EXPIRED); the others are surfaced, the new
 * ones with EMITTED. It reads only the live reminders, so its cost is O(live)
 * whatever the task retains (R48). A boundary with nothing live is usually
 * taken without a transaction (ReminderStore.takeIdleTurn); this is the same
 * step for every other case.
 */
export async function takeTurn(
  tx: ReminderTransaction,
  nowMs: number,
  limits: ReminderLimits,
): Promise<Outcome<TurnResult>> {
  if (tx.ended !== undefined) return { result: { turn: tx.turn, reminders: [] }, events: [] };
  const turn = tx.turn + 1;
  tx.setTurn(turn);
  const events: TaskReminderEvent[] = [];
  const reminders: SurfacedReminder[] = [];
  let expired = false;
  for (const r of await tx.live()) {
    if (r.state === 'ACTIVE' && r.turnsSurfaced >= r.ttlTurns) {
      const ended = recordWith(r, r.seq, { state: 'EXPIRED', endTimeMs: nowMs });
      tx.put(ended);
      events.push(expiredEvent(ended, nowMs, false));
      expired = true;
      continue;
    }
    const first = r.state === 'PENDING';
    const surfaced = recordWith(r, r.seq, {
      state: 'ACTIVE',
      firstTurn: r.firstTurn ?? turn,
      turnsSurfaced: r.turnsSurfaced + 1,
    });
    tx.put(surfaced);
    const turnsRemaining = surfaced.ttlTurns - surfaced.turnsSurfaced;
    if (first) events.push(emittedEvent(surfaced, nowMs, turn, turnsRemaining));
    reminders.push(surfacedOf(surfaced, turnsRemaining, first));
  }
  // R48: records that turned final in this step count against the cap at once.
  if (expired) await tx.purgeOldestFinal(limits.maxRetainedFinalRemindersPerTask);
  return { result: { turn, reminders }, events };
}
