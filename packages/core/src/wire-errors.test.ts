import { describe, expect, it } from 'vitest';
import { reminderErrorCodes } from './errors.js';
import {
  codeOfGrpcStatus,
  codeOfJsonRpcError,
  codeOfRestError,
  RpcCode,
  reminderErrorWire,
  rpcCodeName,
} from './wire-errors.js';

// The table itself is checked against the spec's R39 table in
// packages/conformance/src/error-table.test.ts (core cannot read the spec
// through test-support, which depends on core). These are its inverses.

describe('codeOfJsonRpcError (responses without ErrorInfo)', () => {
  it.each([
    [-32001, 200, 'TASK_NOT_FOUND'],
    [-32004, 200, 'TASK_TERMINAL'],
    [-32602, 200, 'INVALID_ARGUMENT'],
    [-32700, 200, 'INVALID_ARGUMENT'],
    [-32600, 413, 'INVALID_ARGUMENT'],
    [-32005, 200, 'INVALID_ARGUMENT'],
    [-32008, 200, 'EXTENSION_NOT_ACTIVATED'],
    [-32009, 200, 'VERSION_NOT_SUPPORTED'],
    [-32000, 401, 'UNAUTHENTICATED'],
    [-32601, 200, 'UNIMPLEMENTED'],
    [-32000, 200, 'INTERNAL'],
    [-32603, 500, 'INTERNAL'],
    [-32099, 200, 'INTERNAL'],
  ] as const)('%i with HTTP %i is %s', (code, status, expectedCode) => {
    expect(codeOfJsonRpcError(code, status)).toBe(expectedCode);
  });
});

describe('codeOfRestError (bodies without ErrorInfo)', () => {
  it.each([
    [404, 'NOT_FOUND', 'TASK_NOT_FOUND'],
    [400, 'INVALID_ARGUMENT', 'INVALID_ARGUMENT'],
    [400, 'FAILED_PRECONDITION', 'TASK_TERMINAL'],
    [413, 'INVALID_ARGUMENT', 'INVALID_ARGUMENT'],
    [401, 'UNAUTHENTICATED', 'UNAUTHENTICATED'],
    [501, 'UNIMPLEMENTED', 'UNIMPLEMENTED'],
    [401, undefined, 'UNAUTHENTICATED'],
    [429, 'RESOURCE_EXHAUSTED', 'INTERNAL'],
    [500, 'INTERNAL', 'INTERNAL'],
    // R69's answer carries its ErrorInfo; a bare 503 is a proxy's: no answer from the agent.
    [503, 'UNAVAILABLE', 'INTERNAL'],
  ] as const)('%i %s is %s', (status, name, expectedCode) => {
    expect(codeOfRestError(status, name)).toBe(expectedCode);
  });
});

describe('codeOfGrpcStatus (statuses without details)', () => {
  it('inverts the table for every status it uses, first code in the table winning', () => {
    // A bare UNAVAILABLE is checked below: it means no answer, not R69's.
    for (const code of reminderErrorCodes.filter((c) => c !== 'UNAVAILABLE')) {
      const back = codeOfGrpcStatus(reminderErrorWire[code].grpc);
      expect(reminderErrorWire[back].grpc).toBe(reminderErrorWire[code].grpc);
      expect(reminderErrorCodes.indexOf(back)).toBeLessThanOrEqual(
        reminderErrorCodes.indexOf(code),
      );
    }
    expect(codeOfGrpcStatus(RpcCode.NOT_FOUND)).toBe('TASK_NOT_FOUND');
    expect(codeOfGrpcStatus(RpcCode.RESOURCE_EXHAUSTED)).toBe('REMINDER_QUOTA_EXCEEDED');
  });

  it('treats a status outside the table, or a bare UNAVAILABLE (an unreachable agent), as INTERNAL', () => {
    expect(codeOfGrpcStatus(RpcCode.UNAVAILABLE)).toBe('INTERNAL');
    expect(codeOfGrpcStatus(RpcCode.DATA_LOSS)).toBe('INTERNAL');
    expect(codeOfGrpcStatus(RpcCode.UNKNOWN)).toBe('INTERNAL');
  });
});

describe('rpcCodeName', () => {
  it('names google.rpc.Code numbers, and nothing else', () => {
    expect(rpcCodeName(RpcCode.FAILED_PRECONDITION)).toBe('FAILED_PRECONDITION');
    expect(rpcCodeName(0)).toBe('OK');
    expect(rpcCodeName(17)).toBeUndefined();
  });
});
