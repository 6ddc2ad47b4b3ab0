import { ServerCallContext } from '@a2a-js/sdk/server';
import { findReminderRpc, ListTaskRemindersRequestSchema } from '@a2a-reminders/proto';
import { create } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { reminderCallHeaders } from './call-headers.js';
import { callReminderRpc } from './dispatch.js';
import type { ReminderErrorCode } from './errors.js';
import { ReminderError } from './errors.js';
import { TASK_REMINDERS_EXTENSION_URI } from './extension-uri.js';
import type { ReminderRpcHandler } from './service.js';
import { statusDetailsFromJson, statusDetailsToJson } from './status-details-json.js';

describe('status details as ProtoJSON Any objects (R40)', () => {
  it('round-trips ErrorInfo and BadRequest details through JSON', () => {
    const error = new ReminderError('TASK_TERMINAL', 'task t1 is terminal', {
      metadata: { taskId: 't1' },
    });
    const json = statusDetailsToJson(error.toStatusDetails());
    expect(json.map((d) => d['@type'])).toEqual([
      'type.googleapis.com/google.rpc.ErrorInfo',
      'type.googleapis.com/google.rpc.ErrorInfo',
    ]);
    const back = ReminderError.fromStatusDetails(error.message, statusDetailsFromJson(json));
    expect(back?.code).toBe('TASK_TERMINAL');
    expect(back?.metadata).toEqual({ taskId: 't1' });

    const invalid = ReminderError.invalidArgument([
      { field: 'reminder.ttlTurns', description: 'must be in 1..20' },
    ]);
    const parsed = statusDetailsFromJson(statusDetailsToJson(invalid.toStatusDetails()));
    const decoded = ReminderError.fromStatusDetails(invalid.message, parsed);
    expect(decoded?.code).toBe('INVALID_ARGUMENT');
    expect(decoded?.fieldViolations).toEqual(invalid.fieldViolations);
  });

  it('skips details of unknown types and non-arrays instead of failing', () => {
    expect(statusDetailsFromJson({ not: 'an array' })).toEqual([]);
    expect(statusDetailsFromJson([{ '@type': 'type.googleapis.com/x.Unknown', a: 1 }])).toEqual([]);
  });
});

describe('client call headers (issue 4: clients activate the extension themselves)', () => {
  it('sends A2A-Version 1.0 and adds the URI to extensions the caller already activates', () => {
    const headers = reminderCallHeaders(
      { authorization: 'Bearer a', 'A2A-Extensions': 'urn:other' },
      { authorization: 'Bearer b' },
    );
    expect(headers.get('a2a-version')).toBe('1.0');
    expect(headers.get('authorization')).toBe('Bearer b');
    expect(headers.get('a2a-extensions')).toBe(`urn:other,${TASK_REMINDERS_EXTENSION_URI}`);
  });

  it('does not repeat the URI when the caller already lists it', () => {
    const headers = reminderCallHeaders({ 'a2a-extensions': TASK_REMINDERS_EXTENSION_URI });
    expect(headers.get('a2a-extensions')).toBe(TASK_REMINDERS_EXTENSION_URI);
  });
});

describe('dispatch by the rpc local name', () => {
  it('calls the handler method named by the descriptor', async () => {
    const seen: string[] = [];
    const handler = {
      listTaskReminders: async (request: { taskId: string }) => {
        seen.push(request.taskId);
        return create(ListTaskRemindersRequestSchema, { taskId: 'echo' });
      },
    } as unknown as ReminderRpcHandler;
    const rpc = findReminderRpc('ListTaskReminders');
    if (rpc === undefined) throw new Error('rpc missing');
    const request = create(ListTaskRemindersRequestSchema, { taskId: 't9' });
    await callReminderRpc(handler, rpc, request, new ServerCallContext());
    expect(seen).toEqual(['t9']);
  });

  it('reports a handler that lacks the method as UNIMPLEMENTED', async () => {
    const rpc = findReminderRpc('InjectTaskReminder');
    if (rpc === undefined) throw new Error('rpc missing');
    const call = callReminderRpc(
      {} as ReminderRpcHandler,
      rpc,
      create(ListTaskRemindersRequestSchema),
      new ServerCallContext(),
    );
    await expect(call).rejects.toMatchObject({ code: 'UNIMPLEMENTED' });
  });
});

describe('ReminderError.from', () => {
  it('R39: a ReminderError whose code no binding maps (another copy of core) becomes INTERNAL', () => {
    const foreign = new ReminderError('RATE_LIMITED' as ReminderErrorCode, 'slow down');
    const mapped = ReminderError.from(foreign);
    expect(mapped.code).toBe('INTERNAL');
    expect(mapped.message).toBe('internal error');
    expect(mapped.cause).toBe(foreign);
    const known = new ReminderError('TASK_TERMINAL', 'ended');
    expect(ReminderError.from(known)).toBe(known);
  });
});
