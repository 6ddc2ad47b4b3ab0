import type { KitBinding } from '../kit/kit-meta.js';
import { KIT_BINDINGS } from '../kit/kit-meta.js';

export type { KitBinding };
export { KIT_BINDINGS };

/** The agent under test when the suite runs as the kit (issue 15). */
export interface KitTarget {
  /** The agent card URL, as given. */
  readonly cardUrl: string;
  /** The bindings to check, of those the card lists (all when unset). */
  readonly bindings: readonly KitBinding[] | undefined;
  /** Headers sent on every call, e.g. `authorization`. */
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * The kit's target from the environment the kit's runner sets
 * (`A2A_REMINDERS_KIT_CARD_URL`, `_BINDINGS`, `_HEADERS`); undefined when the
 * suite runs in process.
 */
export function kitTarget(env: NodeJS.ProcessEnv = process.env): KitTarget | undefined {
  const cardUrl = env.A2A_REMINDERS_KIT_CARD_URL;
  if (cardUrl === undefined || cardUrl === '') return undefined;
  const listed = env.A2A_REMINDERS_KIT_BINDINGS?.split(',')
    .map((b) => b.trim())
    .filter((b) => b !== '');
  for (const binding of listed ?? []) {
    if (!(KIT_BINDINGS as readonly string[]).includes(binding)) {
      throw new Error(`A2A_REMINDERS_KIT_BINDINGS: unknown binding ${binding}`);
    }
  }
  const headers = JSON.parse(env.A2A_REMINDERS_KIT_HEADERS ?? '{}') as unknown;
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) {
    throw new Error('A2A_REMINDERS_KIT_HEADERS must be a JSON object of header names to values');
  }
  return {
    cardUrl,
    bindings: listed === undefined ? undefined : (listed as KitBinding[]),
    headers: headers as Record<string, string>,
  };
}
