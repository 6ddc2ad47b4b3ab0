import { reminderErrorCodes } from '@a2a-reminders/core';
import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { grpcStatusOf, reminderErrorCodeOfGrpcStatus } from './grpc-status-table.js';

describe('grpcStatusOf', () => {
  it('maps every reminder error code to the status issue 4 and A2A v1.0 §5 give it', () => {
    expect(Object.keys(grpcStatusOf).sort()).toEqual([...reminderErrorCodes].sort());
    expect(grpcStatusOf).toEqual({
      TASK_NOT_FOUND: status.NOT_FOUND,
      TASK_TERMINAL: status.FAILED_PRECONDITION,
      INVALID_ARGUMENT: status.INVALID_ARGUMENT,
      REMINDER_ID_CONFLICT: status.INVALID_ARGUMENT,
      REMINDER_NOT_FOUND: status.NOT_FOUND,
      REMINDER_NOT_LIVE: status.FAILED_PRECONDITION,
      REMINDER_QUOTA_EXCEEDED: status.RESOURCE_EXHAUSTED,
      EXTENSION_NOT_ACTIVATED: status.FAILED_PRECONDITION,
      VERSION_NOT_SUPPORTED: status.FAILED_PRECONDITION,
      UNAUTHENTICATED: status.UNAUTHENTICATED,
      UNIMPLEMENTED: status.UNIMPLEMENTED,
      INTERNAL: status.INTERNAL,
    });
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
