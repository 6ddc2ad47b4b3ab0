import { describe, expect, it } from 'vitest';
import { TaskReminderService } from './gen/a2a/reminders/v1/reminders_pb.js';
import { parsePathTemplate } from './http-rules.js';
import { findReminderRpc, reminderRpcNames, reminderRpcs } from './rpcs.js';

describe('rpc names from the descriptor', () => {
  it('lists the three rpcs in declaration order', () => {
    expect(reminderRpcNames).toEqual([
      'InjectTaskReminder',
      'ListTaskReminders',
      'CancelTaskReminder',
    ]);
  });

  it('builds the gRPC paths from the service name', () => {
    expect(reminderRpcs.map((r) => r.grpcPath)).toEqual([
      '/a2a.reminders.v1.TaskReminderService/InjectTaskReminder',
      '/a2a.reminders.v1.TaskReminderService/ListTaskReminders',
      '/a2a.reminders.v1.TaskReminderService/CancelTaskReminder',
    ]);
  });

  it('finds rpcs by name and rejects unknown names', () => {
    expect(findReminderRpc('CancelTaskReminder')?.method.name).toBe('CancelTaskReminder');
    expect(findReminderRpc('GetTask')).toBeUndefined();
  });
});

describe('HTTP rules from google.api.http', () => {
  const rule = (name: string) =>
    findReminderRpc(name)?.http.map((b) => [b.verb, b.path.source, b.body]);

  it('reads InjectTaskReminder with its tenant binding', () => {
    expect(rule('InjectTaskReminder')).toEqual([
      ['post', '/tasks/{task_id=*}:injectReminder', '*'],
      ['post', '/{tenant}/tasks/{task_id=*}:injectReminder', '*'],
    ]);
  });

  it('reads ListTaskReminders as a body-less GET', () => {
    expect(rule('ListTaskReminders')).toEqual([
      ['get', '/tasks/{task_id=*}/reminders', ''],
      ['get', '/{tenant}/tasks/{task_id=*}/reminders', ''],
    ]);
  });

  it('reads CancelTaskReminder with two path variables', () => {
    expect(rule('CancelTaskReminder')).toEqual([
      ['post', '/tasks/{task_id=*}/reminders/{reminder_id=*}:cancel', '*'],
      ['post', '/{tenant}/tasks/{task_id=*}/reminders/{reminder_id=*}:cancel', '*'],
    ]);
  });

  it('parses variables to request fields with their JSON names, and the custom verb', () => {
    const inject = findReminderRpc('InjectTaskReminder');
    const tenantBinding = inject?.http[1];
    expect(tenantBinding?.path.segments).toEqual([
      { kind: 'variable', field: 'tenant', jsonName: 'tenant' },
      { kind: 'literal', value: 'tasks' },
      { kind: 'variable', field: 'task_id', jsonName: 'taskId' },
    ]);
    expect(tenantBinding?.path.verb).toBe('injectReminder');
    expect(findReminderRpc('ListTaskReminders')?.http[0]?.path.verb).toBeUndefined();
  });

  it('rejects templates whose variables are not request fields', () => {
    const method = TaskReminderService.method.injectTaskReminder;
    expect(() => parsePathTemplate(method, '/tasks/{nope=*}')).toThrow(/not a request field/);
    expect(() => parsePathTemplate(method, 'tasks/{task_id}')).toThrow(/must start with/);
    expect(() => parsePathTemplate(method, '/tasks/{task_id=**}')).toThrow(/unsupported/);
  });
});
