import type { Requirement } from '../requirements.js';
import { requirementIds, requirements } from '../requirements.js';

/**
 * What the report needs to know of a requirement, including those that no
 * case reached: a rule with no case on a binding must still be listed, as
 * not observable, with its reason.
 */
export interface KitRequirement {
  readonly id: string;
  readonly rule: string;
  readonly behavior: string;
  /** The arms it is verified on (all when absent), and why. */
  readonly arms?: readonly string[];
  readonly armsNote?: string;
  /** Why no case of it can be driven from outside the agent, when none can. */
  readonly kitNote?: string;
}

/**
 * The manifest (src/requirements.ts) as the report reads it. `kitNote` is read
 * structurally, so this compiles whether or not the manifest's type declares it.
 */
export function manifestRequirements(): KitRequirement[] {
  return requirementIds.map((id) => {
    const requirement: Requirement & { readonly kitNote?: string } = requirements[id];
    const { rule, behavior, arms, armsNote, kitNote } = requirement;
    return {
      id,
      rule,
      behavior,
      ...(arms === undefined ? {} : { arms }),
      ...(armsNote === undefined ? {} : { armsNote }),
      ...(kitNote === undefined ? {} : { kitNote }),
    };
  });
}
