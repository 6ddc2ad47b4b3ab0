import type { TestContext } from 'vitest';
import { test } from 'vitest';
import type { KitCaseMeta } from '../kit/kit-meta.js';
import type { Requirement, RequirementId } from '../requirements.js';
import { requirements } from '../requirements.js';
import { limitsMismatch } from './advertised-limits.js';
import type { Arm } from './arms.js';
import { ARMS } from './arms.js';
import { ExchangeLog } from './exchange-log.js';
import type { KitBinding, KitTarget } from './kit-target.js';
import { KIT_BINDINGS, kitTarget } from './kit-target.js';
import { NotObservable } from './not-observable.js';
import { startRemoteWire } from './remote-wire.js';
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
  /**
   * The case reads the limits it exercises from the agent's card (R2), so
   * the kit runs it on the agent's own limits; the stack's `limits` only
   * keep the in-process run small. Without it, the kit runs a case set up
   * with limits only on an agent advertising exactly those.
   */
  readonly advertisedLimits?: true;
  /** The arms of this case, when fewer than the requirement's (a comparison the direct arm would make with itself). */
  readonly arms?: readonly Arm[];
}

/** The arms a requirement is verified on. */
export function armsOf(requirement: Requirement): readonly Arm[] {
  return requirement.arms ?? ARMS;
}

/** `[arm] id: behavior`, or `[arm] id (variant): behavior`: in process and in the kit alike (kit/case-name.ts reads it). */
function caseName(
  arm: Arm,
  id: RequirementId,
  requirement: Requirement,
  options: VerifyOptions,
): string {
  const label = options.variant === undefined ? id : `${id} (${options.variant})`;
  return `[${arm}] ${label}: ${requirement.behavior}`;
}

function armsOfCase(requirement: Requirement, options: VerifyOptions): readonly Arm[] {
  const arms = armsOf(requirement);
  return options.arms === undefined ? arms : arms.filter((arm) => options.arms?.includes(arm));
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
  const target = kitTarget();
  if (target !== undefined) {
    verifiesFromOutside(id, requirement, fn, options, target);
    return;
  }
  const store = storeParameter();
  if (!(requirement.stores?.includes(store) ?? true)) {
    throw new Error(
      `verifies: ${String(id)} applies to ${requirement.stores?.join(', ')} only ` +
        `(${requirement.storesNote}); keep its file out of the ${store} project in vitest.config.ts`,
    );
  }
  for (const arm of armsOfCase(requirement, options)) {
    const known = requirement.knownFailures?.find(
      (f) => f.arm === arm && f.variant === options.variant,
    );
    const name = caseName(arm, id, requirement, options);
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

/**
 * The kit's registration (issue 15): the same case, once per binding the
 * agent under test's card lists (of those asked for), on a remote wire. A
 * case that needs a configured stack, or reaches for what only the
 * in-process suite has, is skipped as not observable, with the reason; a
 * failure carries the calls the case made.
 */
function verifiesFromOutside(
  id: RequirementId,
  requirement: Requirement,
  fn: (context: VerifyContext) => Promise<void>,
  options: VerifyOptions,
  target: KitTarget,
): void {
  const bindings = armsOfCase(requirement, options).filter(
    (arm): arm is KitBinding =>
      (KIT_BINDINGS as readonly Arm[]).includes(arm) &&
      (target.bindings?.includes(arm as KitBinding) ?? true),
  );
  for (const binding of bindings) {
    test(caseName(binding, id, requirement, options), async (context: TestContext) => {
      const meta: { -readonly [K in keyof KitCaseMeta]: KitCaseMeta[K] } = {
        requirement: id,
        rule: requirement.rule,
        binding,
        ...(options.variant === undefined ? {} : { variant: options.variant }),
      };
      context.task.meta.kit = meta;
      const skip = (reason: string): void => {
        meta.notObservable = reason;
        context.skip(reason);
      };
      if (requirement.kitNote !== undefined) return skip(requirement.kitNote);
      const stack = typeof options.stack === 'function' ? undefined : options.stack;
      const { limits, ...otherOptions } = stack ?? {};
      if (
        options.stack !== undefined &&
        (stack === undefined || Object.keys(otherOptions).length > 0)
      ) {
        return skip(
          'the case runs on an agent set up for it in process (body limit, clock, authentication, status messages or replicas)',
        );
      }
      const log = new ExchangeLog();
      // Any failure, a hang guard's or the wire's disposal too, shows the calls behind it.
      context.onTestFailed(() => {
        if (meta.notObservable === undefined) meta.exchanges = log.snapshot();
      });
      let wire: Wire | undefined;
      try {
        wire = await startRemoteWire(binding, target, log);
        // A case written for given limits runs where the agent advertises exactly those (R2).
        const mismatch =
          limits === undefined || options.advertisedLimits
            ? undefined
            : limitsMismatch(wire.card, limits);
        if (mismatch !== undefined) return skip(mismatch);
        await fn({ arm: binding, wire });
      } catch (error) {
        if (error instanceof NotObservable) return skip(error.reason);
        throw error;
      } finally {
        await wire?.[Symbol.asyncDispose]();
      }
    });
  }
}
