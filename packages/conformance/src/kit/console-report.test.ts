import { describe, expect, test } from 'vitest';
import { aggregate } from './aggregate.js';
import { CONSOLE_LIMITS, clipText, clipValue, prettyJson, visible } from './clip.js';
import { formatConsoleReport, wrap } from './console-report.js';
import { kitCase, REQUIREMENTS } from './fixtures/synthetic-cases.js';
import type { KitReport } from './kit-report.js';
import { REDACTED, redact, secretsOf } from './redact.js';

function failingReport(): KitReport {
  const request = {
    jsonrpc: '2.0',
    method: 'InjectTaskReminder',
    params: { reminder: { id: 'r-1', body: `a\u0007b${'y'.repeat(1000)}` } },
  };
  return aggregate(
    {
      cases: [
        kitCase({
          binding: 'jsonrpc',
          requirement: 'R1-extension-uri',
          rule: 'R1',
          state: 'passed',
        }),
        kitCase({
          binding: 'jsonrpc',
          requirement: 'R13-idempotent-resend',
          rule: 'R13',
          state: 'failed',
          message: "the re-send is answered alike: expected 'conflict' to be 'PENDING'",
          exchanges: [
            { call: '(3 earlier exchanges not kept)', binding: '', request: null },
            {
              call: 'InjectTaskReminder',
              binding: 'jsonrpc',
              request,
              response: { error: { code: -32602, message: 'conflict' } },
            },
            {
              call: 'GetTask',
              binding: 'jsonrpc',
              request: { id: 't' },
              error: { name: 'TypeError' },
            },
          ],
        }),
        kitCase({
          binding: 'rest',
          requirement: 'R1-extension-uri',
          rule: 'R1',
          state: 'skipped',
          notObservable: 'the case needs a clock',
        }),
      ],
      runErrors: [],
    },
    {
      bindings: ['jsonrpc', 'rest'],
      requirements: REQUIREMENTS,
      cardUrl: 'http://agent/card.json',
    },
  );
}

describe('console report', () => {
  test('a summary line and the rules of each binding, with the reasons of what was not observable', () => {
    const text = formatConsoleReport(failingReport());
    const lines = text.split('\n');
    expect(lines[0]).toBe('A2A task reminders conformance: http://agent/card.json');
    expect(lines).toContain('jsonrpc: 1 pass, 1 fail, 3 not observable');
    expect(lines).toContain('rest: 0 pass, 0 fail, 5 not observable');
    expect(text).toMatch(/^ {2}pass {12}R1 {3}the extension URI keys the metadata$/m);
    expect(text).toMatch(
      /^ {2}FAIL {12}R13 {2}an identical re-send changes nothing; also after the task ended$/m,
    );
    expect(text).toMatch(
      /^ {2}not observable {2}R1 {3}the extension URI keys the metadata\n {23}the case needs a clock$/m,
    );
    for (const line of lines.filter((l) => /^ {2}(pass|FAIL|not observable) /.test(l))) {
      expect(line.length).toBeLessThanOrEqual(100);
    }
  });

  test('each failure shows the case, its message and every exchange, shortened where marked', () => {
    const text = formatConsoleReport(failingReport());
    expect(text).toContain('Failures (1)');
    expect(text).toContain('1) [jsonrpc] R13-idempotent-resend: behavior of R13-idempotent-resend');
    expect(text).toContain('   rule R13 on jsonrpc · src/scenarios/example.test.ts');
    expect(text).toContain("   the re-send is answered alike: expected 'conflict' to be 'PENDING'");
    expect(text).toContain(
      '   exchange 1 of 3: (3 earlier exchanges not kept)\n   exchange 2 of 3',
    );
    expect(text).toContain(
      '   exchange 2 of 3: InjectTaskReminder over jsonrpc\n     request sent:\n       {',
    );
    expect(text).toContain(
      '     response received:\n       { "error": { "code": -32602, "message": "conflict" } }',
    );
    expect(text).toContain('     error received:\n       { "name": "TypeError" }');
    // JSON escapes the control character; the 1003-character body is cut.
    expect(text).toContain('"body": "a\\u0007b');
    expect(text).toContain('… [truncated: 1003 characters in all]');
    expect(text).toContain('--json <file> keeps them whole');
    expect(text.trimEnd().split('\n').at(-1)).toBe(
      'Verdict: FAIL: 1 rule check failed (jsonrpc: R13)',
    );
  });

  test('a passing and an incomplete run end with their verdicts; run errors and vitest output are shown', () => {
    const pass = aggregate(
      {
        cases: [
          kitCase({
            binding: 'rest',
            requirement: 'R1-extension-uri',
            rule: 'R1',
            state: 'passed',
          }),
        ],
        runErrors: [],
      },
      { bindings: ['rest'], requirements: REQUIREMENTS },
    );
    expect(formatConsoleReport(pass)).toMatch(
      /Verdict: PASS: 1 rule check passed and none failed on rest \(4 not observable\)\n$/,
    );
    const incomplete = aggregate(
      {
        cases: [
          kitCase({
            binding: 'rest',
            requirement: 'R1-extension-uri',
            rule: 'R1',
            state: 'passed',
          }),
        ],
        runErrors: ['src/scenarios/inject.test.ts: Error: cannot reach the agent'],
        vitestOutput: 'Error: something vitest said',
      },
      { bindings: ['rest'], requirements: REQUIREMENTS },
    );
    const text = formatConsoleReport(incomplete);
    expect(text).toContain(
      'Run errors:\n  - src/scenarios/inject.test.ts: Error: cannot reach the agent',
    );
    expect(text).toContain('  vitest printed:\n    Error: something vitest said');
    expect(text).toContain('Verdict: INCOMPLETE');
  });

  test('a failure with many exchanges shows the last ones, and says which are left out', () => {
    const exchanges = Array.from({ length: 9 }, (_, i) => ({
      call: `GetTask #${i + 1}`,
      binding: 'rest',
      request: { id: 't' },
      response: { status: { state: 'TASK_STATE_WORKING' } },
    }));
    const report = aggregate(
      {
        cases: [
          kitCase({
            binding: 'rest',
            requirement: 'R1-extension-uri',
            rule: 'R1',
            state: 'failed',
            message: 'timed out',
            exchanges,
          }),
        ],
        runErrors: [],
      },
      { bindings: ['rest'], requirements: REQUIREMENTS },
    );
    const text = formatConsoleReport(report);
    expect(text).toContain(
      '   (exchanges 1–3 of 9 are not shown here; the JSON report (--json) has them all)\n   exchange 4 of 9: GetTask #4 over rest',
    );
    expect(text).not.toContain('GetTask #3');
    expect(text).toContain(
      '     response received:\n       { "status": { "state": "TASK_STATE_WORKING" } }',
    );
  });

  test('control and bidi characters in names and messages are shown as escapes', () => {
    const report = aggregate(
      {
        cases: [
          {
            ...kitCase({
              binding: 'rest',
              requirement: 'R1-extension-uri',
              rule: 'R1',
              state: 'failed',
            }),
            errors: [{ message: 'got \u001b[31mred\u202e and \u0000' }],
          },
        ],
        runErrors: [],
      },
      { bindings: ['rest'], requirements: REQUIREMENTS },
    );
    const text = formatConsoleReport(report);
    expect(text).toContain('got \\u001b[31mred\\u202e and \\u0000');
    for (const raw of ['\u0000', '\u001b', '\u202e']) expect(text.includes(raw)).toBe(false);
  });
});

describe('clipping', () => {
  test('long reasons wrap at spaces, a word longer than the width staying whole', () => {
    expect(wrap('aa bb cc dd', 5)).toEqual(['aa bb', 'cc dd']);
    expect(wrap('a verylongword b', 4)).toEqual(['a', 'verylongword', 'b']);
    expect(wrap('', 4)).toEqual(['']);
  });

  test('long strings, arrays and deep values are cut with a note of what was cut', () => {
    expect(clipText('abcdef', 3)).toBe('abc… [truncated: 6 characters in all]');
    // Never half a surrogate pair.
    expect(clipText('ab😀cd', 3)).toBe('ab… [truncated: 6 characters in all]');
    const limits = { ...CONSOLE_LIMITS, maxItems: 2, maxDepth: 2 };
    expect(clipValue([1, 2, 3, 4], limits)).toEqual([1, 2, '… [truncated: 2 more items]']);
    expect(clipValue({ a: 1, b: 2, c: 3 }, limits)).toEqual({
      a: 1,
      b: 2,
      '…': '[truncated: 1 more keys]',
    });
    expect(clipValue({ a: { b: { c: 1 } } }, limits)).toEqual({ a: { b: '[object: too deep]' } });
    const cyclic: Record<string, unknown> = { n: 1n };
    cyclic.self = cyclic;
    expect(clipValue(cyclic, CONSOLE_LIMITS)).toEqual({ n: '1n', self: '[circular]' });
    const lines = prettyJson(
      Array.from({ length: 15 }, (_, i) => 'x'.repeat(i + 10)),
      { ...CONSOLE_LIMITS, maxLines: 5 },
    );
    expect(lines.split('\n')).toHaveLength(6);
    expect(lines).toMatch(/… \[truncated: 12 more lines\]$/);
    expect(visible('a\tb\nc\u0085\ud800')).toBe('a\tb\nc\\u0085\\ud800');
  });

  test('header values are redacted everywhere in a report, keys and values, whole or as their credential', () => {
    const secrets = secretsOf({ authorization: 'Bearer s3cr3t-token', 'x-short': 'abc' });
    expect(secrets).toEqual(['Bearer s3cr3t-token', 's3cr3t-token']);
    const value = {
      headers: { authorization: 'Bearer s3cr3t-token' },
      echoed: ['s3cr3t-token!'],
      abc: 'abc',
    };
    expect(redact(value, secrets)).toEqual({
      headers: { authorization: REDACTED },
      echoed: [`${REDACTED}!`],
      abc: 'abc',
    });
  });
});
