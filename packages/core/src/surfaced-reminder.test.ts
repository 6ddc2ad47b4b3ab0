import { TaskState } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { harness } from './testing/harness.js';

// What the worker's runtime receives for a reminder at a boundary (R20): the
// TaskReminder's fields, the ttl replaced by what is left of it, and nothing
// of the record's bookkeeping.

async function workingTask() {
  const h = harness();
  const task = await h.saveTask('t1', TaskState.TASK_STATE_WORKING);
  const sink = h.openBus('t1');
  return { h, turn: () => h.service.beginTurn(h.requestContext(task), sink.bus) };
}

describe('surfaced reminders', () => {
  it('R20: carry exactly the reminder fields but the ttl, with turnsRemaining and firstSurfacing', async () => {
    const { h, turn } = await workingTask();
    await h.inject('t1', {
      id: 'r',
      body: 'wrap up',
      dedupeKey: 'budget',
      ttlTurns: 2,
      roleHint: 'system',
      source: 'monitor',
      metadata: { level: 80, tags: ['budget'] },
    });
    const first = await turn();
    const second = await turn();
    const fields = {
      id: 'r',
      body: 'wrap up',
      dedupeKey: 'budget',
      roleHint: 'system',
      source: 'monitor',
      metadata: { level: 80, tags: ['budget'] },
    };
    expect(first.reminders).toStrictEqual([{ ...fields, turnsRemaining: 1, firstSurfacing: true }]);
    expect(second.reminders).toStrictEqual([
      { ...fields, turnsRemaining: 0, firstSurfacing: false },
    ]);
  });

  it('R9, R20: fields the caller left unset are empty strings, and no metadata key without metadata', async () => {
    const { h, turn } = await workingTask();
    await h.inject('t1', { id: 'r', body: 'x' });
    const [surfaced] = (await turn()).reminders;
    expect(surfaced).toStrictEqual({
      id: 'r',
      body: 'x',
      dedupeKey: '',
      roleHint: '',
      source: '',
      turnsRemaining: 0,
      firstSurfacing: true,
    });
    expect(surfaced !== undefined && 'metadata' in surfaced).toBe(false);
  });
});
