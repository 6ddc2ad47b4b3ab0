/** The limits a reminder service enforces; all are options of the service (spec R-validation). */
export interface ReminderLimits {
  /** Longest accepted body, in characters (UTF-16 code units). */
  readonly maxBodyChars: number;
  /** Largest accepted ttlTurns. */
  readonly maxTtlTurns: number;
  /** Most live (pending or active) reminders one task may hold. */
  readonly maxLiveRemindersPerTask: number;
  /** Largest accepted metadata, in bytes of its JSON serialization. */
  readonly maxMetadataBytes: number;
  /** How long a task's records stay listable after the task ends, in ms. */
  readonly retentionMs: number;
  /**
   * Most final (expired, displaced, cancelled, dropped) records one task
   * keeps; beyond it the oldest to become final are purged (R48).
   */
  readonly maxRetainedFinalRemindersPerTask: number;
  /** R60: most hops a forwarded reminder's provenance may hold. */
  readonly maxForwardHops: number;
}

export const defaultReminderLimits: ReminderLimits = {
  maxBodyChars: 4096,
  maxTtlTurns: 20,
  maxLiveRemindersPerTask: 64,
  maxMetadataBytes: 16 * 1024,
  retentionMs: 60 * 60 * 1000,
  // Twice the live quota: the eventual fate of every reminder live at one
  // moment stays listable, with as much recent history again. Worst case
  // about 128 × 21 KiB (4 KiB body, 16 KiB metadata) ≈ 2.7 MiB per task.
  maxRetainedFinalRemindersPerTask: 128,
  // Deeper than the agent graphs seen in practice (a coordinator, a worker,
  // its helpers), shallow enough that a chain that went wrong stops soon.
  maxForwardHops: 4,
};

/** ttlTurns when the caller leaves it unset. */
export const DEFAULT_TTL_TURNS = 1;

/**
 * R57, R67: default delay of displacement events. The inject's response
 * already names what it displaced (R16) and List shows it at once (R34),
 * and anything else published on the task sends them first; so a stream
 * learning it at the task's next event, or 10 s later, loses nothing, and a
 * monitor that keeps firing costs one status update per task per 10 s.
 */
export const DEFAULT_DISPLACED_EVENT_DELAY_MS = 10_000;
