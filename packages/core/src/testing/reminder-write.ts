import type { ReminderWrite } from '../store.js';

/** A PENDING reminder as a store takes it, for store tests; `extra` overrides any field. */
export function reminderWrite(id: string, extra: Partial<ReminderWrite> = {}): ReminderWrite {
  return {
    id,
    body: 'b',
    dedupeKey: '',
    ttlTurns: 1,
    roleHint: '',
    source: '',
    state: 'PENDING',
    createTimeMs: 0,
    turnsSurfaced: 0,
    acceptance: { displacedReminderIds: [], taskState: 'TASK_STATE_WORKING' },
    ...extra,
  };
}
