import { DEFAULT_DISPLACED_EVENT_DELAY_MS } from '@a2a-reminders/core';

/**
 * R57: displacement events wait on their task for the service's default
 * delay. Waiting it out after a warm-up keeps their status updates out of the
 * measured window; waiting it out after the window, before its CPU is read,
 * charges the window for all of its own.
 */
export function settleDelayedEvents(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, DEFAULT_DISPLACED_EVENT_DELAY_MS + 250));
}
