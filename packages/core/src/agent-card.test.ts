import type { AgentCard } from '@a2a-js/sdk';
import { DefaultExecutionEventBusManager, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { describe, expect, it } from 'vitest';
import { withTaskReminders } from './agent-card.js';
import { TASK_REMINDERS_EXTENSION_URI } from './extension-uri.js';
import { createReminderService } from './reminder-service.js';

const card = {
  name: 'worker',
  description: 'd',
  supportedInterfaces: [],
  version: '1',
  capabilities: {
    streaming: true,
    extensions: [{ uri: 'urn:other', description: '', required: true, params: undefined }],
  },
} as unknown as AgentCard;

describe('agent card', () => {
  it('R2: the extension is advertised with required:false and params listing limits and events', () => {
    const service = createReminderService({
      taskStore: new InMemoryTaskStore(),
      eventBusManager: new DefaultExecutionEventBusManager(),
      limits: { maxTtlTurns: 5 },
    });
    const out = withTaskReminders(card, service);
    expect(out.capabilities?.extensions.map((e) => e.uri)).toEqual([
      'urn:other',
      TASK_REMINDERS_EXTENSION_URI,
    ]);
    const ext = out.capabilities?.extensions[1];
    expect(ext?.required).toBe(false);
    expect(ext?.params).toEqual({
      maxBodyChars: 4096,
      maxTtlTurns: 5,
      maxLiveRemindersPerTask: 64,
      maxMetadataBytes: 16384,
      retentionMs: 3_600_000,
      maxRetainedFinalRemindersPerTask: 128,
      maxForwardHops: 4,
      defaultTtlTurns: 1,
      acceptedStates: [
        'TASK_STATE_SUBMITTED',
        'TASK_STATE_WORKING',
        'TASK_STATE_INPUT_REQUIRED',
        'TASK_STATE_AUTH_REQUIRED',
      ],
      events: ['emitted', 'displaced', 'expired', 'cancelled', 'dropped', 'forward'],
    });
    expect(card.capabilities?.extensions.length).toBe(1);
    expect(withTaskReminders(out, service).capabilities?.extensions.length).toBe(2);
  });
});
