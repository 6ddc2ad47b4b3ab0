import { reminderRpcs } from '@a2a-reminders/proto';
import { describe, expect, it } from 'vitest';
import { expandPathTemplate, matchPathTemplate } from './path-template.js';

const templateOf = (rpc: string, i: number) => {
  const binding = reminderRpcs.find((r) => r.name === rpc)?.http[i];
  if (binding === undefined) throw new Error(`no binding ${rpc}[${i}]`);
  return binding.path;
};

describe('path templates from google.api.http', () => {
  const inject = templateOf('InjectTaskReminder', 0);
  const injectTenant = templateOf('InjectTaskReminder', 1);
  const cancel = templateOf('CancelTaskReminder', 0);
  const listTenant = templateOf('ListTaskReminders', 1);

  it('matches literals, variables and the custom verb', () => {
    expect(matchPathTemplate(inject, '/tasks/t1:injectReminder')).toEqual({ taskId: 't1' });
    expect(matchPathTemplate(injectTenant, '/acme/tasks/t1:injectReminder')).toEqual({
      tenant: 'acme',
      taskId: 't1',
    });
    expect(matchPathTemplate(cancel, '/tasks/a:b/reminders/r%2F1:cancel')).toEqual({
      taskId: 'a:b',
      reminderId: 'r%2F1',
    });
    expect(matchPathTemplate(listTenant, '/acme/tasks/t1/reminders')).toEqual({
      tenant: 'acme',
      taskId: 't1',
    });
  });

  it('rejects other verbs, lengths, literals and empty variables', () => {
    expect(matchPathTemplate(inject, '/tasks/t1:cancel')).toBeUndefined();
    expect(matchPathTemplate(inject, '/tasks/t1')).toBeUndefined();
    expect(matchPathTemplate(inject, '/acme/tasks/t1:injectReminder')).toBeUndefined();
    expect(matchPathTemplate(inject, '/jobs/t1:injectReminder')).toBeUndefined();
    expect(matchPathTemplate(inject, '/tasks/:injectReminder')).toBeUndefined();
    expect(matchPathTemplate(listTenant, '/tasks/t1/reminders')).toBeUndefined();
  });

  it('expands with percent-encoding and needs every variable', () => {
    expect(expandPathTemplate(cancel, { taskId: 'a:b', reminderId: 'r/1' })).toBe(
      '/tasks/a%3Ab/reminders/r%2F1:cancel',
    );
    expect(expandPathTemplate(injectTenant, { taskId: 't1' })).toBeUndefined();
  });
});
