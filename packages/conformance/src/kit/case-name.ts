import type { KitBinding } from './kit-meta.js';
import { KIT_BINDINGS } from './kit-meta.js';

/** What a kit-mode case name says: `[<binding>] <id>[ (<variant>)]: <behavior>`. */
export interface ParsedCaseName {
  readonly binding: KitBinding;
  readonly requirement: string;
  readonly variant?: string;
  readonly behavior: string;
}

// The id has no spaces; the variant is everything between the first " (" and
// the "): " that closes it, so a variant may itself hold parentheses.
const CASE_NAME = /^\[([a-z]+)\] (\S+?)(?: \((.*?)\))?: ([\s\S]*)$/;

/**
 * Reads a case name back into its parts. The runner prefers `task.meta.kit`;
 * the name is the fallback for a case that failed before its meta was set,
 * and the source of the behavior sentence for rules outside the manifest.
 */
export function parseCaseName(name: string): ParsedCaseName | undefined {
  const match = CASE_NAME.exec(name);
  if (match === null) return undefined;
  const [, binding = '', requirement = '', variant, behavior = ''] = match;
  if (!(KIT_BINDINGS as readonly string[]).includes(binding)) return undefined;
  return {
    binding: binding as KitBinding,
    requirement,
    ...(variant === undefined ? {} : { variant }),
    behavior,
  };
}
