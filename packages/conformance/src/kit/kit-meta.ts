// The augmentation below needs vitest's types in every program that compiles
// this file, also the build of src/kit, where nothing else imports 'vitest'.
/// <reference types="vitest" />

/**
 * What a kit-mode case records about itself, for the runner (run-kit.ts) to
 * read back through vitest's task meta. The harness writes it
 * (`task.meta.kit = …`); the runner only reads, so this file is the whole
 * contract between the two.
 */

/** The three A2A bindings the kit checks, in this project's own spelling. */
export type KitBinding = 'jsonrpc' | 'rest' | 'grpc';

export const KIT_BINDINGS: readonly KitBinding[] = ['jsonrpc', 'rest', 'grpc'];

/**
 * One call a case made to the agent under test, as sent and as answered.
 * Values are plain JSON: they cross from vitest's worker to the runner
 * serialized, and end up in the console, JUnit and JSON reports.
 */
export interface Exchange {
  /** The operation, e.g. `InjectTaskReminder` or `SendMessage`. */
  readonly call: string;
  readonly binding: string;
  readonly request: unknown;
  readonly response?: unknown;
  readonly error?: unknown;
}

/** `task.meta.kit` of every kit-mode case. */
export interface KitCaseMeta {
  /** The requirement id, e.g. `R13-idempotent-resend`. */
  readonly requirement: string;
  /** The rule it cites, e.g. `R13` or `W4`. */
  readonly rule: string;
  readonly binding: KitBinding;
  readonly variant?: string;
  /** Set on a skipped case: why its rule cannot be observed from outside the agent. */
  readonly notObservable?: string;
  /** Set on a failed case: the calls it made, in order. */
  readonly exchanges?: readonly Exchange[];
}

declare module 'vitest' {
  interface TaskMeta {
    kit?: KitCaseMeta;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Whether a meta value read back from a worker has the shape above. The
 * runner checks rather than trusts it: a harness bug should show as a case
 * the kit cannot attribute, not as a crash of the report.
 */
export function isKitCaseMeta(value: unknown): value is KitCaseMeta {
  if (!isRecord(value)) return false;
  const { requirement, rule, binding, variant, notObservable, exchanges } = value;
  return (
    typeof requirement === 'string' &&
    typeof rule === 'string' &&
    typeof binding === 'string' &&
    (KIT_BINDINGS as readonly string[]).includes(binding) &&
    (variant === undefined || typeof variant === 'string') &&
    (notObservable === undefined || typeof notObservable === 'string') &&
    (exchanges === undefined ||
      (Array.isArray(exchanges) &&
        exchanges.every((e) => isRecord(e) && typeof e.call === 'string')))
  );
}
