import type { PathTemplate } from '@a2a-reminders/proto';
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

  it('turns away a path whose last segment is not the last literal', () => {
    expect(matchPathTemplate(listTenant, '/acme/tasks/t1/xreminders')).toBeUndefined();
    expect(matchPathTemplate(listTenant, '/acme/tasks/t1/reminders/')).toBeUndefined();
    expect(matchPathTemplate(listTenant, 'reminders')).toBeUndefined();
    expect(matchPathTemplate(listTenant, '/acme/tasks/t1')).toBeUndefined();
  });

  it('matches every path of a grid exactly as a regular expression of the template does', () => {
    const pieces = ['tasks', 'reminders', 't1', '', 'a:b', 'remind%65rs'];
    const endings = ['', ':injectReminder', ':cancel', '/'];
    const paths: string[] = [''];
    // Up to five segments: the longest template, /{tenant}/tasks/{task_id}/reminders/{reminder_id}:cancel.
    for (let n = 1; n <= 5; n++) {
      const previous = paths.filter((p) => p.split('/').length === n);
      for (const p of previous) for (const piece of pieces) paths.push(`${p}/${piece}`);
    }
    const templates = reminderRpcs.flatMap((rpc) => rpc.http.map((b) => b.path));
    const disagreements: string[] = [];
    for (const template of templates) {
      const expected = referenceMatcher(template);
      let matched = 0;
      for (const path of paths) {
        for (const ending of endings) {
          const actual = JSON.stringify(matchPathTemplate(template, path + ending));
          if (actual !== JSON.stringify(expected(path + ending))) {
            disagreements.push(`${template.source} ${path + ending}: ${actual}`);
          }
          if (actual !== undefined) matched++;
        }
      }
      // Agreement alone would pass for a matcher and a reference that both always refuse.
      expect(matched, template.source).toBeGreaterThan(0);
    }
    expect(disagreements).toEqual([]);
  });

  it('expands with percent-encoding and needs every variable', () => {
    expect(expandPathTemplate(cancel, { taskId: 'a:b', reminderId: 'r/1' })).toBe(
      '/tasks/a%3Ab/reminders/r%2F1:cancel',
    );
    expect(expandPathTemplate(injectTenant, { taskId: 't1' })).toBeUndefined();
  });
});

/** What a template matches, as a regular expression: a variable is one non-empty segment. */
function referenceMatcher(
  template: PathTemplate,
): (path: string) => Record<string, string> | undefined {
  const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const names: string[] = [];
  const body = template.segments
    .map((segment) => {
      if (segment.kind === 'literal') return escapeRegExp(segment.value);
      names.push(segment.jsonName);
      return '([^/]+)';
    })
    .join('/');
  const verb = template.verb === undefined ? '' : escapeRegExp(`:${template.verb}`);
  const pattern = new RegExp(`^/${body}${verb}$`);
  return (path) => {
    const found = pattern.exec(path);
    if (found === null) return undefined;
    return Object.fromEntries(names.map((name, i) => [name, found[i + 1] ?? '']));
  };
}
