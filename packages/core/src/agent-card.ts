import type { AgentCard, AgentExtension } from '@a2a-js/sdk';
import { REMINDER_EVENT_KINDS } from './events.js';
import { TASK_REMINDERS_EXTENSION_URI } from './extension-uri.js';
import type { ReminderLimits } from './limits.js';
import { DEFAULT_TTL_TURNS, defaultReminderLimits } from './limits.js';
import { ACCEPTING_STATES, HOLDING_STATES, taskStateName } from './task-states.js';

/** Anything that can describe its own extension entry, such as a ReminderService. */
export interface AgentExtensionSource {
  agentExtension(): AgentExtension;
}

/**
 * R2: the `capabilities.extensions` entry: not required (clients that do not
 * know the extension keep working), with params listing the limits, the
 * default ttl, the task states that accept reminders and the events.
 */
export function reminderAgentExtension(
  limits: ReminderLimits = defaultReminderLimits,
): AgentExtension {
  return {
    uri: TASK_REMINDERS_EXTENSION_URI,
    description:
      'Task reminders: short, non-user-authored context a caller injects into a running task for its next model turns.',
    required: false,
    params: {
      maxBodyChars: limits.maxBodyChars,
      maxTtlTurns: limits.maxTtlTurns,
      maxLiveRemindersPerTask: limits.maxLiveRemindersPerTask,
      maxMetadataBytes: limits.maxMetadataBytes,
      retentionMs: limits.retentionMs,
      maxRetainedFinalRemindersPerTask: limits.maxRetainedFinalRemindersPerTask,
      maxForwardHops: limits.maxForwardHops,
      defaultTtlTurns: DEFAULT_TTL_TURNS,
      acceptedStates: [...ACCEPTING_STATES, ...HOLDING_STATES].map((s) => taskStateName(s)),
      events: [...REMINDER_EVENT_KINDS],
    },
  };
}

/**
 * Returns a copy of the card that advertises the extension (R2), replacing
 * any earlier entry with the same URI. The card passed in is not modified.
 */
export function withTaskReminders(card: AgentCard, service: AgentExtensionSource): AgentCard {
  const extension = service.agentExtension();
  const capabilities = card.capabilities ?? { extensions: [] };
  const others = capabilities.extensions.filter((e) => e.uri !== extension.uri);
  return { ...card, capabilities: { ...capabilities, extensions: [...others, extension] } };
}
