import type { ReminderErrorCode } from '@a2a-reminders/core';
import { specErrorTable } from '@a2a-reminders/test-support';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { expect } from 'vitest';
import type { Arm } from './arms.js';
import type { RawOutcome } from './raw-call.js';

/** R39, parsed from the spec's table (docs/extension-spec.md), not restated here. */
const TABLE = specErrorTable();

/**
 * Asserts that a raw call failed with `code`, rebuilt as such from its
 * details (R40), with the JSON-RPC code and HTTP status, the REST HTTP
 * status or the gRPC status the spec's table gives the arm's binding (on
 * the direct arm, which has no wire, the code only).
 */
export function expectWireCode(arm: Arm, code: ReminderErrorCode, outcome: RawOutcome): void {
  const row = TABLE.get(code);
  if (row === undefined) throw new Error(`the spec's R39 table has no row for ${code}`);
  expect(outcome.ok, code).toBe(false);
  if (outcome.ok) return;
  // The direct arm has no wire: only the typed error.
  if (arm === 'direct')
    return void expect({ code, rebuilt: outcome.error.code }).toEqual({ code, rebuilt: code });
  const got =
    arm === 'jsonrpc'
      ? [outcome.wire.jsonRpcCode, outcome.wire.httpStatus]
      : arm === 'rest'
        ? outcome.wire.httpStatus
        : outcome.wire.grpcCode;
  const want =
    arm === 'jsonrpc'
      ? [row.jsonRpcCode, row.jsonRpcHttpStatus]
      : arm === 'rest'
        ? row.httpStatus
        : GrpcStatus[row.grpcStatus as keyof typeof GrpcStatus];
  expect({ code, rebuilt: outcome.error.code, got }).toEqual({ code, rebuilt: code, got: want });
}
