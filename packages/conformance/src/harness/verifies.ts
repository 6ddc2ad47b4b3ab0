import { test } from 'vitest';
import type { Requirement, RequirementId } from '../requirements.js';
import { requirements } from '../requirements.js';
import type { Arm } from './arms.js';
import { ARMS } from './arms.js';
import type { StackOptions } from './stack.js';
import { storeParameter } from './stack-store.js';
import type { Wire } from './wire.js';
import { startWire } from './wire.js';

export interface VerifyContext {
  readonly arm: Arm;
  readonly wire: Wire;
}

export interface VerifyOptions {
  /** Options of the stack the case runs on (limits, authentication, clock). */
  readonly stack?: StackOptions | (() => StackOptions);
  /** Names a second verification of the same requirement, e.g. `custom limits`. */
  readonly variant?: string;
}

/** The arms a requirement is verified on. */
export function armsOf(requirement: Requirement): readonly Arm[] {
  return requirement.arms ?? ARMS;
}

/**
 * Registers one vitest case per arm of the requirement, named
 * `[arm] id: behavior`, each on a fresh stack that is disposed afterwards.
 * A declared known failure runs as `test.fails`, so it fails the run once it
 * starts passing (stale). Unknown ids throw at collection, and so does a
 * requirement collected on a reminder store it does not apply to (`stores`):
 * vitest.config.ts keeps such files out of that store's project.
 */
export function verifies(
  id: RequirementId,
  fn: (context: VerifyContext) => Promise<void>,
  options: VerifyOptions = {},
): void {
  const requirement: Requirement | undefined = requirements[id];
  if (requirement === undefined) throw new Error(`verifies: unknown requirement id ${String(id)}`);
  const store = storeParameter();
  if (!(requirement.stores?.includes(store) ?? true)) {
    throw new Error(
      `verifies: ${String(id)} applies to ${requirement.stores?.join(', ')} only ` +
        `(${requirement.storesNote}); keep its file out of the ${store} project in vitest.config.ts`,
    );
  }
  for (const arm of armsOf(requirement)) {
    const known = requirement.knownFailures?.find(
      (f) => f.arm === arm && f.variant === options.variant,
    );
    const label = options.variant === undefined ? id : `${id} (${options.variant})`;
    const name = `[${arm}] ${label}: ${requirement.behavior}`;
    const body = async (): Promise<void> => {
      const stackOptions =
        typeof options.stack === 'function' ? options.stack() : (options.stack ?? {});
      const wire = await startWire(arm, stackOptions);
      try {
        await fn({ arm, wire });
      } finally {
        await wire[Symbol.asyncDispose]();
      }
    };
    if (known === undefined) test(name, body);
    else test.fails(`${name} (known failure: ${known.reason})`, body);
  }
}
