import { createHash } from 'node:crypto';
import type { ReminderStoreKey } from '@a2a-reminders/core';

/** The PostgreSQL channel every replica LISTENs on for committed event batches (R52). */
export const EVENT_CHANNEL = 'a2a_reminders_events';

/** How long the log keeps a batch: far past any lease, so a follower that lags still finds it (R54). */
export const EVENT_LOG_RETENTION_MS = 10 * 60_000;

/**
 * Batches one task keeps in the log at most; every {@link EVENT_LOG_TRIM_EVERY}
 * batches the older ones go, so a task that runs for days keeps a bounded log.
 */
export const EVENT_LOG_MAX_PER_TASK = 1024;
export const EVENT_LOG_TRIM_EVERY = 256;

/**
 * The payload a commit notifies with: a digest of the task's scope, fixed
 * size whatever the ids' length (a NOTIFY payload has a size limit) and
 * naming no tenant, owner or task to whoever can LISTEN. It only wakes a
 * follower, which then reads the log by the exact key, so a collision costs
 * a read, never a wrong event.
 */
export function eventChannelPayload(key: ReminderStoreKey): string {
  return createHash('sha256')
    .update(`${key.tenant}\u0000${key.owner}\u0000${key.taskId}`)
    .digest('base64url')
    .slice(0, 22);
}
