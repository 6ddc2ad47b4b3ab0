import type { KitBinding } from './kit-meta.js';

/**
 * The environment variables that put the harness in kit mode. The runner
 * sets them for the vitest run (workers inherit them); the harness reads them
 * when the scenario files register their cases.
 */
export const KIT_ENV = {
  /** The agent card of the agent under test; its presence is what selects kit mode. */
  cardUrl: 'A2A_REMINDERS_KIT_CARD_URL',
  /** Comma list of jsonrpc, rest, grpc: the card's interfaces to check (all when absent). */
  bindings: 'A2A_REMINDERS_KIT_BINDINGS',
  /** JSON object of extra headers sent on every call, e.g. authorization. */
  headers: 'A2A_REMINDERS_KIT_HEADERS',
} as const;

/** What the kit is pointed at. */
export interface KitTarget {
  readonly cardUrl: string;
  readonly bindings?: readonly KitBinding[];
  readonly headers?: Readonly<Record<string, string>>;
}

/** The variables for a run against `target`. */
export function kitEnv(target: KitTarget): Record<string, string> {
  return {
    [KIT_ENV.cardUrl]: target.cardUrl,
    ...(target.bindings === undefined ? {} : { [KIT_ENV.bindings]: target.bindings.join(',') }),
    // Always set (possibly to {}), so a value left in the caller's shell
    // cannot add headers the runner was not given.
    [KIT_ENV.headers]: JSON.stringify(target.headers ?? {}),
  };
}
