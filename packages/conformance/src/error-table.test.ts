import { reminderErrorCodes } from '@a2a-reminders/core';
import type { RpcCodeName } from '@a2a-reminders/core/protocol';
import { RpcCode, reminderErrorWire, rpcCodeName } from '@a2a-reminders/core/protocol';
import { specErrorTable } from '@a2a-reminders/test-support';
import { status as grpcStatus } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';

/**
 * R39 is one table in core (`reminderErrorWire`) that every binding reads;
 * here it is checked against the spec's own table, parsed from
 * docs/extension-spec.md rather than restated. The scenarios check what each
 * binding then puts on the wire (errors.test.ts, R39-error-table).
 */
const spec = specErrorTable();

describe('core error table = the spec table (R39)', () => {
  it('covers every core code, as the spec table does', () => {
    expect(Object.keys(reminderErrorWire).sort()).toEqual([...reminderErrorCodes].sort());
    expect([...spec.keys()].sort()).toEqual([...reminderErrorCodes].sort());
  });

  it.each(reminderErrorCodes)('%s has the columns the spec gives it', (code) => {
    const row = spec.get(code);
    const wire = reminderErrorWire[code];
    expect({
      jsonRpc: wire.jsonRpc,
      jsonRpcHttp: wire.jsonRpcHttp,
      grpc: rpcCodeName(wire.grpc),
      http: wire.http,
    }).toEqual({
      jsonRpc: row?.jsonRpcCode,
      jsonRpcHttp: row?.jsonRpcHttpStatus,
      grpc: row?.grpcStatus,
      http: row?.httpStatus,
    });
  });

  it('numbers gRPC statuses as gRPC does', () => {
    for (const [name, code] of Object.entries(RpcCode)) {
      expect([name, code]).toEqual([name, grpcStatus[name as RpcCodeName]]);
    }
  });
});
