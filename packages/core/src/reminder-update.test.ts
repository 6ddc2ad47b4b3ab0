import { TaskState } from '@a2a-js/sdk';
import type { AgentExecutionEvent } from '@a2a-js/sdk/server';
import { AgentEvent } from '@a2a-js/sdk/server';
import { describe, expect, it } from 'vitest';
import { batchMetadata, eventBatch } from './events.js';
import { isReminderUpdate } from './reminder-update.js';

const batch = batchMetadata(eventBatch('t1', []));

function update(state: TaskState, metadata: Record<string, unknown> | undefined) {
  return AgentEvent.statusUpdate({
    taskId: 't1',
    contextId: 'c1',
    status: { state, message: undefined, timestamp: '2026-01-01T00:00:00.000Z' },
    metadata,
  });
}

/** The same event as a client stream item. */
function streamed(event: AgentExecutionEvent) {
  if (event.kind !== 'statusUpdate') throw new Error('a status update');
  return { payload: { $case: 'statusUpdate' as const, value: event.data } };
}

describe('isReminderUpdate (R50)', () => {
  it('R50: a non-terminal status update carrying a batch is a reminder update', () => {
    for (const state of [
      TaskState.TASK_STATE_WORKING,
      TaskState.TASK_STATE_AUTH_REQUIRED,
      TaskState.TASK_STATE_SUBMITTED,
    ]) {
      expect(isReminderUpdate(update(state, batch))).toBe(true);
      expect(isReminderUpdate(streamed(update(state, batch)))).toBe(true);
    }
  });

  it('R50: a status update without a batch, and a terminal one with held events, are status changes', () => {
    const plain = update(TaskState.TASK_STATE_WORKING, undefined);
    const other = update(TaskState.TASK_STATE_WORKING, { 'https://example.com/x': { a: 1 } });
    const terminal = update(TaskState.TASK_STATE_CANCELED, batch);
    for (const event of [plain, other, terminal]) {
      expect(isReminderUpdate(event)).toBe(false);
      expect(isReminderUpdate(streamed(event))).toBe(false);
    }
    const task = AgentEvent.task({
      id: 't1',
      contextId: 'c1',
      status: undefined,
      artifacts: [],
      history: [],
      metadata: batch,
    });
    expect(isReminderUpdate(task)).toBe(false);
  });
});
