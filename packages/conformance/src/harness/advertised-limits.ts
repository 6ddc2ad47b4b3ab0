import type { AgentCard } from '@a2a-js/sdk';
import type { ReminderLimits } from '@a2a-reminders/core';
import { TASK_REMINDERS_EXTENSION_URI } from '@a2a-reminders/core';

/**
 * The limits an agent's card advertises in the extension's params (R2), so
 * a case can use the agent's own values; a limit not advertised as a number
 * is absent.
 */
export function advertisedLimits(card: AgentCard): Partial<ReminderLimits> {
  const params = card.capabilities?.extensions.find((e) => e.uri === TASK_REMINDERS_EXTENSION_URI)
    ?.params as Record<string, unknown> | undefined;
  const limits: Record<string, number> = {};
  for (const [key, value] of Object.entries(params ?? {})) {
    if (key.startsWith('max') || key === 'retentionMs') {
      if (typeof value === 'number' && Number.isFinite(value)) limits[key] = value;
    }
  }
  return limits as Partial<ReminderLimits>;
}

/** The one advertised limit a case needs; throws when the card leaves it out (an R2 failure of its own). */
export function advertisedLimit(card: AgentCard, name: keyof ReminderLimits): number {
  const value = advertisedLimits(card)[name];
  if (value === undefined)
    throw new Error(`the agent card's extension params advertise no ${name} (R2)`);
  return value;
}

/**
 * Why a kit case configured with `limits` cannot run on an agent, or
 * undefined when the agent advertises exactly those limits (issue 15: an
 * implementation can run the kit again against an agent configured so).
 */
export function limitsMismatch(
  card: AgentCard,
  wanted: Partial<ReminderLimits>,
): string | undefined {
  const advertised = advertisedLimits(card);
  const differing = Object.entries(wanted).filter(
    ([name, value]) => advertised[name as keyof ReminderLimits] !== value,
  );
  if (differing.length === 0) return undefined;
  const want = differing.map(([name, value]) => `${name} ${value}`).join(', ');
  const has = differing
    .map(([name]) => `${name} ${advertised[name as keyof ReminderLimits] ?? 'unadvertised'}`)
    .join(', ');
  return `the case runs on an agent advertising ${want} (this one advertises ${has})`;
}
