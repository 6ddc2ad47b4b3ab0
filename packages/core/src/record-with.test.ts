import { describe, expect, it } from 'vitest';
import { recordWith } from './record-with.js';
import type { StoredReminder } from './store.js';
import { reminderWrite } from './testing/reminder-write.js';

const pending: StoredReminder = { ...reminderWrite('a', { metadata: { k: 1 } }), seq: 4 };

describe('recordWith', () => {
  it('applies the change and keeps every other field, shapes included', () => {
    const ended = recordWith(pending, pending.seq, {
      state: 'DISPLACED',
      endTimeMs: 9,
      displacedBy: 'b',
    });
    expect(ended).toStrictEqual({
      ...pending,
      provenance: undefined,
      state: 'DISPLACED',
      endTimeMs: 9,
      displacedBy: 'b',
    });
    // Nested values are shared, not copied: records are immutable.
    expect(ended.metadata).toBe(pending.metadata);
    expect(ended.acceptance).toBe(pending.acceptance);
  });

  it('keeps optional bookkeeping the change leaves out and adds none it lacks', () => {
    const surfaced = recordWith(pending, pending.seq, { state: 'ACTIVE', firstTurn: 2 });
    const expired = recordWith(surfaced, 7, { state: 'EXPIRED', endTimeMs: 5 });
    expect(expired.firstTurn).toBe(2);
    expect(expired.seq).toBe(7);
    expect(expired).not.toHaveProperty('displacedBy');
    expect(expired).not.toHaveProperty('forwards');
  });
});
