import { reminderErrorCodes } from '@a2a-reminders/core';
import { specErrorRow, specErrorTable } from '@a2a-reminders/test-support';
import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { grpcStatusOf, reminderErrorCodeOfGrpcStatus } from './grpc-status-table.js';

/** R39 as the spec states it: parsed from docs/extension-spec.md, not restated here. */
const spec = specErrorTable();

describe('grpcStatusOf', () => {
  it('covers every core code, as the spec table does', () => {
    expect(Object.keys(grpcStatusOf).sort()).toEqual([...reminderErrorCodes].sort());
    expect([...spec.keys()].sort()).toEqual([...reminderErrorCodes].sort());
  });

  it.each(reminderErrorCodes)('%s has the status the spec table (R39) gives it', (code) => {
    const name = specErrorRow(code).grpcStatus;
    expect(name in status, `${name} is a gRPC status`).toBe(true);
    expect(grpcStatusOf[code]).toBe(status[name as keyof typeof status]);
  });
});

describe('reminderErrorCodeOfGrpcStatus', () => {
  it('inverts the table for every status it uses, first code in the table winning', () => {
    for (const code of reminderErrorCodes) {
      const back = reminderErrorCodeOfGrpcStatus(grpcStatusOf[code]);
      expect(grpcStatusOf[back]).toBe(grpcStatusOf[code]);
      expect(reminderErrorCodes.indexOf(back)).toBeLessThanOrEqual(
        reminderErrorCodes.indexOf(code),
      );
    }
    expect(reminderErrorCodeOfGrpcStatus(status.NOT_FOUND)).toBe('TASK_NOT_FOUND');
    expect(reminderErrorCodeOfGrpcStatus(status.RESOURCE_EXHAUSTED)).toBe(
      'REMINDER_QUOTA_EXCEEDED',
    );
  });

  it('treats a status outside the table as INTERNAL', () => {
    expect(reminderErrorCodeOfGrpcStatus(status.UNAVAILABLE)).toBe('INTERNAL');
    expect(reminderErrorCodeOfGrpcStatus(status.UNKNOWN)).toBe('INTERNAL');
  });
});
