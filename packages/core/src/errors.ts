import { A2AError } from '@a2a-js/sdk/errors';
import type { BadRequest, ErrorInfo } from '@a2a-reminders/proto';
import { BadRequestSchema, ErrorInfoSchema } from '@a2a-reminders/proto';
import type { DescMessage, MessageShape } from '@bufbuild/protobuf';
import { create } from '@bufbuild/protobuf';
import { A2A_ERROR_DOMAIN, REMINDERS_ERROR_DOMAIN } from './extension-uri.js';

/**
 * Every way a reminder operation can fail. Closed: the one wire mapping of
 * the bindings (`reminderErrorWire` in wire-errors.ts, R39) is checked by the
 * compiler to cover every code, so adding a code here breaks the build until
 * its wire form is decided. The spec's error table (docs/extension-spec.md)
 * lists them.
 */
export type ReminderErrorCode =
  /** Unknown task, or a task the caller may not see (same bytes either way). */
  | 'TASK_NOT_FOUND'
  /** The task is COMPLETED, FAILED, CANCELED or REJECTED. */
  | 'TASK_TERMINAL'
  /** A field of the request is missing, malformed or out of range; carries field violations. */
  | 'INVALID_ARGUMENT'
  /** The reminder id was used before in this task with different content. */
  | 'REMINDER_ID_CONFLICT'
  /** CancelTaskReminder named a reminder id the task does not have. */
  | 'REMINDER_NOT_FOUND'
  /** CancelTaskReminder on a reminder that expired, was displaced or was dropped. */
  | 'REMINDER_NOT_LIVE'
  /** The task already holds maxLiveRemindersPerTask live reminders. */
  | 'REMINDER_QUOTA_EXCEEDED'
  /** R60: the reminder's provenance holds more hops than the server's maxForwardHops. */
  | 'FORWARD_HOP_LIMIT_EXCEEDED'
  /** R61: the reminder's provenance already names the task it is sent to. */
  | 'FORWARD_LOOP'
  /** The request did not activate the extension in A2A-Extensions. */
  | 'EXTENSION_NOT_ACTIVATED'
  /** The A2A-Version the caller asked for is not served by this binding. */
  | 'VERSION_NOT_SUPPORTED'
  /** The service requires an authenticated caller and this one is not. */
  | 'UNAUTHENTICATED'
  /**
   * The server does not serve this rpc: an agent without the extension (what
   * a client sees from a stock A2A server), or a handler that lacks the rpc.
   */
  | 'UNIMPLEMENTED'
  /**
   * R69: the server's store could not be reached or could not write (a
   * database restart, a lost connection, a locked or full file). Nothing was
   * changed unless a retry would be a replay (R13); the caller may retry.
   */
  | 'UNAVAILABLE'
  /** A bug on the server side. */
  | 'INTERNAL';

/** Every code, for exhaustive tests and tables. */
export const reminderErrorCodes: readonly ReminderErrorCode[] = [
  'TASK_NOT_FOUND',
  'TASK_TERMINAL',
  'INVALID_ARGUMENT',
  'REMINDER_ID_CONFLICT',
  'REMINDER_NOT_FOUND',
  'REMINDER_NOT_LIVE',
  'REMINDER_QUOTA_EXCEEDED',
  'FORWARD_HOP_LIMIT_EXCEEDED',
  'FORWARD_LOOP',
  'EXTENSION_NOT_ACTIVATED',
  'VERSION_NOT_SUPPORTED',
  'UNAUTHENTICATED',
  'UNIMPLEMENTED',
  'UNAVAILABLE',
  'INTERNAL',
];

/**
 * The A2A v1.0 error (spec §5 table) a code becomes, as the UPPER_SNAKE reason
 * of its `google.rpc.ErrorInfo` in domain `a2a-protocol.org`; `undefined` where
 * A2A defines no error for the case and only the extension's own reason is sent.
 */
export const a2aReasonOf = {
  TASK_NOT_FOUND: 'TASK_NOT_FOUND',
  TASK_TERMINAL: 'UNSUPPORTED_OPERATION',
  INVALID_ARGUMENT: undefined,
  REMINDER_ID_CONFLICT: undefined,
  REMINDER_NOT_FOUND: undefined,
  REMINDER_NOT_LIVE: 'UNSUPPORTED_OPERATION',
  REMINDER_QUOTA_EXCEEDED: undefined,
  FORWARD_HOP_LIMIT_EXCEEDED: undefined,
  FORWARD_LOOP: undefined,
  EXTENSION_NOT_ACTIVATED: 'EXTENSION_SUPPORT_REQUIRED',
  VERSION_NOT_SUPPORTED: 'VERSION_NOT_SUPPORTED',
  UNAUTHENTICATED: undefined,
  UNIMPLEMENTED: undefined,
  UNAVAILABLE: undefined,
  INTERNAL: undefined,
} as const satisfies Record<ReminderErrorCode, string | undefined>;

/**
 * Codes that also carry a second ErrorInfo in the extension's own domain, so
 * a caller can tell e.g. a terminal task from other unsupported operations.
 * The reason is the code itself.
 */
const extensionReason = {
  TASK_NOT_FOUND: false,
  TASK_TERMINAL: true,
  INVALID_ARGUMENT: false,
  REMINDER_ID_CONFLICT: true,
  REMINDER_NOT_FOUND: true,
  REMINDER_NOT_LIVE: true,
  REMINDER_QUOTA_EXCEEDED: true,
  FORWARD_HOP_LIMIT_EXCEEDED: true,
  FORWARD_LOOP: true,
  EXTENSION_NOT_ACTIVATED: false,
  VERSION_NOT_SUPPORTED: false,
  UNAUTHENTICATED: true,
  UNIMPLEMENTED: true,
  UNAVAILABLE: true,
  INTERNAL: false,
} as const satisfies Record<ReminderErrorCode, boolean>;

/** One invalid field: its ProtoJSON path (`reminder.ttlTurns`) and what is wrong with it. */
export interface FieldViolation {
  readonly field: string;
  readonly description: string;
}

export interface ReminderErrorOptions {
  readonly metadata?: Readonly<Record<string, string>>;
  readonly fieldViolations?: readonly FieldViolation[];
  readonly cause?: unknown;
}

const REMINDER_ERROR_BRAND = Symbol.for('@a2a-reminders/core.ReminderError');

/**
 * The one error type of the reminder service. Core throws it; each binding
 * turns it into its wire envelope through the one code table (R39), and each
 * client turns the envelope back into an equal ReminderError.
 */
export class ReminderError extends Error {
  override readonly name = 'ReminderError';
  readonly code: ReminderErrorCode;
  /** String metadata for the ErrorInfo details (e.g. `taskId`). */
  readonly metadata: Readonly<Record<string, string>>;
  /** Field violations; non-empty only for INVALID_ARGUMENT, REMINDER_ID_CONFLICT and the FORWARD_ codes. */
  readonly fieldViolations: readonly FieldViolation[];
  readonly [REMINDER_ERROR_BRAND] = true;

  constructor(code: ReminderErrorCode, message: string, options: ReminderErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.metadata = options.metadata ?? {};
    this.fieldViolations = options.fieldViolations ?? [];
  }

  /** Works across duplicated copies of this package, like the SDK's A2AError brand. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && REMINDER_ERROR_BRAND in value;
  }

  /** INVALID_ARGUMENT for one or more field violations. */
  static invalidArgument(violations: readonly FieldViolation[]): ReminderError {
    const message = violations.map((v) => `${v.field}: ${v.description}`).join('; ');
    return new ReminderError('INVALID_ARGUMENT', `invalid request: ${message}`, {
      fieldViolations: violations,
    });
  }

  /**
   * Normalizes anything thrown below a binding: a ReminderError passes through;
   * an SDK A2AError (e.g. VersionNotSupportedError from `validateVersion`)
   * keeps its meaning; anything else is INTERNAL, with the original as cause
   * and a message that leaks no internals.
   */
  static from(error: unknown): ReminderError {
    // The brand lets a ReminderError of another copy of core through; its code
    // must still be one every binding maps (R39), or it is a server fault.
    if (error instanceof ReminderError && isReminderErrorCode(error.code)) return error;
    if (error instanceof A2AError) {
      const code = codeOfA2AReason(error.reason);
      if (code !== undefined) {
        return new ReminderError(code, error.message, {
          metadata: error.metadata ?? {},
          cause: error,
        });
      }
    }
    return new ReminderError('INTERNAL', 'internal error', { cause: error });
  }

  /** The A2A reason (domain `a2a-protocol.org`) this error carries, if any. */
  get a2aReason(): string | undefined {
    return a2aReasonOf[this.code];
  }

  /**
   * The `google.rpc.Status` details every binding sends (A2A v1.0 §5): the
   * A2A ErrorInfo first where A2A has the error, then the extension's own
   * ErrorInfo, then a BadRequest with the field violations.
   */
  toStatusDetails(): Array<ErrorInfo | BadRequest> {
    const details: Array<ErrorInfo | BadRequest> = [];
    const a2a = this.a2aReason;
    if (a2a !== undefined) {
      details.push(
        create(ErrorInfoSchema, {
          reason: a2a,
          domain: A2A_ERROR_DOMAIN,
          metadata: { ...this.metadata },
        }),
      );
    }
    if (extensionReason[this.code]) {
      details.push(
        create(ErrorInfoSchema, {
          reason: this.code,
          domain: REMINDERS_ERROR_DOMAIN,
          metadata: { ...this.metadata },
        }),
      );
    }
    if (this.fieldViolations.length > 0) {
      details.push(
        create(BadRequestSchema, {
          fieldViolations: this.fieldViolations.map((v) => ({ ...v })),
        }),
      );
    }
    return details;
  }

  /**
   * Rebuilds a ReminderError from the details of a wire error (the inverse of
   * {@link toStatusDetails}); clients call it with whatever details they
   * decoded. Returns `undefined` when the details identify no code, so the
   * client can fall back to the code its binding's status stands for.
   */
  static fromStatusDetails(
    message: string,
    details: ReadonlyArray<MessageShape<DescMessage>>,
  ): ReminderError | undefined {
    let code: ReminderErrorCode | undefined;
    let metadata: Record<string, string> = {};
    const violations: FieldViolation[] = [];
    for (const d of details) {
      if (d.$typeName === ErrorInfoSchema.typeName) {
        const info = d as ErrorInfo;
        if (info.domain === REMINDERS_ERROR_DOMAIN && isReminderErrorCode(info.reason)) {
          code = info.reason;
          metadata = { ...info.metadata };
        } else if (info.domain === A2A_ERROR_DOMAIN && code === undefined) {
          code = codeOfA2AReason(info.reason);
          metadata = { ...info.metadata };
        }
      } else if (d.$typeName === BadRequestSchema.typeName) {
        for (const v of (d as BadRequest).fieldViolations) {
          violations.push({ field: v.field, description: v.description });
        }
      }
    }
    if (code === undefined && violations.length > 0) code = 'INVALID_ARGUMENT';
    if (code === undefined) return undefined;
    return new ReminderError(code, message, { metadata, fieldViolations: violations });
  }
}

export function isReminderErrorCode(value: string): value is ReminderErrorCode {
  return (reminderErrorCodes as readonly string[]).includes(value);
}

/** The code an A2A reason stands for when it arrives alone (no extension ErrorInfo). */
function codeOfA2AReason(reason: string): ReminderErrorCode | undefined {
  switch (reason) {
    case 'TASK_NOT_FOUND':
      return 'TASK_NOT_FOUND';
    case 'VERSION_NOT_SUPPORTED':
      return 'VERSION_NOT_SUPPORTED';
    case 'EXTENSION_SUPPORT_REQUIRED':
      return 'EXTENSION_NOT_ACTIVATED';
    default:
      return undefined;
  }
}
