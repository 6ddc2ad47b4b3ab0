import { describe, expect, test } from 'vitest';
import { aggregate, compareRules, exitCodeOf, NO_CASE_REASON } from './aggregate.js';
import type { KitRun } from './case-result.js';
import { kitCase, REQUIREMENTS } from './fixtures/synthetic-cases.js';
import type { BindingReport, RuleResult } from './kit-report.js';

function rule(binding: BindingReport | undefined, id: string): RuleResult {
  const found = binding?.rules.find((r) => r.rule === id);
  if (found === undefined) throw new Error(`no rule ${id}`);
  return found;
}

const options = { bindings: ['jsonrpc', 'rest'] as const, requirements: REQUIREMENTS };

describe('aggregate', () => {
  test('a rule fails on a binding when any of its cases failed there, and only there', () => {
    const run: KitRun = {
      cases: [
        kitCase({
          binding: 'jsonrpc',
          requirement: 'R13-idempotent-resend',
          rule: 'R13',
          state: 'passed',
        }),
        kitCase({
          binding: 'jsonrpc',
          requirement: 'R13-idempotent-resend-later',
          rule: 'R13',
          state: 'failed',
          message: 'expected PENDING',
        }),
        kitCase({
          binding: 'rest',
          requirement: 'R13-idempotent-resend',
          rule: 'R13',
          state: 'passed',
        }),
      ],
      runErrors: [],
    };
    const report = aggregate(run, options);
    const [jsonrpc, rest] = report.bindings;
    expect(rule(jsonrpc, 'R13')).toMatchObject({
      status: 'fail',
      passed: 1,
      failed: 1,
      requirements: ['R13-idempotent-resend', 'R13-idempotent-resend-later'],
      behavior: 'an identical re-send changes nothing; also after the task ended',
    });
    expect(rule(jsonrpc, 'R13').failures.map((f) => f.errors[0]?.message)).toEqual([
      'expected PENDING',
    ]);
    expect(rule(rest, 'R13').status).toBe('pass');
    expect(report.verdict).toBe('fail');
    expect(exitCodeOf(report)).toBe(1);
  });

  test('a rule passes when one case ran and passed, even if others were not observable', () => {
    const run: KitRun = {
      cases: [
        kitCase({
          binding: 'jsonrpc',
          requirement: 'R1-extension-uri',
          rule: 'R1',
          state: 'passed',
        }),
        kitCase({
          binding: 'jsonrpc',
          requirement: 'R1-extension-uri',
          rule: 'R1',
          variant: 'custom limits',
          state: 'skipped',
          notObservable: 'the agent advertises other limits',
        }),
      ],
      runErrors: [],
    };
    const r1 = rule(aggregate(run, options).bindings[0], 'R1');
    expect(r1).toMatchObject({ status: 'pass', passed: 1, skipped: 1 });
    expect(r1.notObservable).toBeUndefined();
  });

  test('a rule is not observable when nothing ran, with the reasons of its skipped cases and of requirements with no case', () => {
    const run: KitRun = {
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
          state: 'skipped',
          notObservable: 'the case needs a clock',
        }),
        kitCase({
          binding: 'jsonrpc',
          requirement: 'R52-replica-event-delivery',
          rule: 'R52',
          state: 'skipped',
          notObservable: 'a kit outside the agent cannot start or stop its replicas',
        }),
      ],
      runErrors: [],
    };
    const [jsonrpc, rest] = aggregate(run, options).bindings;
    expect(rule(jsonrpc, 'R13')).toMatchObject({
      status: 'not observable',
      notObservable: ['the case needs a clock', NO_CASE_REASON],
    });
    expect(rule(jsonrpc, 'R52').notObservable).toEqual([
      'a kit outside the agent cannot start or stop its replicas',
    ]);
    // No case at all on rest: the manifest's kitNote, the arms note, or the default.
    expect(rule(rest, 'R52').notObservable).toEqual([
      'a kit outside the agent cannot start or stop its replicas',
    ]);
    expect(rule(rest, 'W2').notObservable).toEqual([NO_CASE_REASON]);
    expect(rest?.counts).toEqual({ pass: 0, fail: 0, notObservable: 5 });
    expect(jsonrpc?.counts).toEqual({ pass: 1, fail: 0, notObservable: 4 });
  });

  test('a binding outside a requirement’s arms says the rule is not verified there, and why', () => {
    const report = aggregate(
      {
        cases: [
          kitCase({
            binding: 'grpc',
            requirement: 'R1-extension-uri',
            rule: 'R1',
            state: 'passed',
          }),
        ],
        runErrors: [],
      },
      { bindings: ['grpc'], requirements: REQUIREMENTS },
    );
    expect(rule(report.bindings[0], 'R43').notObservable).toEqual([
      'not verified on grpc: binary protobuf has no such strings',
    ]);
  });

  test('rules are listed R-numbers first, then W-numbers, in numeric order, every checked binding even without cases', () => {
    const report = aggregate(
      {
        cases: [
          kitCase({
            binding: 'jsonrpc',
            requirement: 'R1-extension-uri',
            rule: 'R1',
            state: 'passed',
          }),
        ],
        runErrors: [],
      },
      { bindings: ['jsonrpc', 'grpc'], requirements: REQUIREMENTS },
    );
    expect(report.bindings.map((b) => b.binding)).toEqual(['jsonrpc', 'grpc']);
    expect(report.bindings[1]?.rules.map((r) => r.rule)).toEqual(['R1', 'R13', 'R43', 'R52', 'W2']);
    expect(['W10', 'R9', 'X', 'R10', 'W2'].sort(compareRules)).toEqual([
      'R9',
      'R10',
      'W2',
      'W10',
      'X',
    ]);
  });

  test('a case without meta is placed by its name; a binding a case ran on is reported even if not asked', () => {
    const run: KitRun = {
      cases: [
        kitCase({
          binding: 'grpc',
          requirement: 'R13-idempotent-resend',
          rule: 'R13',
          state: 'failed',
          message: 'the wire failed to start',
          noMeta: true,
        }),
      ],
      runErrors: [],
    };
    const report = aggregate(run, options);
    expect(report.bindings.map((b) => b.binding)).toEqual(['jsonrpc', 'rest', 'grpc']);
    expect(rule(report.bindings[2], 'R13').status).toBe('fail');
    expect(report.unattributed).toEqual([]);
  });

  test('rules the manifest does not know are reported from the cases, with the behavior from the case name', () => {
    const report = aggregate(
      {
        cases: [kitCase({ binding: 'rest', requirement: 'R99-new', rule: 'R99', state: 'passed' })],
        runErrors: [],
      },
      { bindings: ['rest'], requirements: [] },
    );
    expect(report.bindings[0]?.rules).toMatchObject([
      { rule: 'R99', status: 'pass', behavior: 'behavior of R99-new', requirements: ['R99-new'] },
    ]);
    expect(report.verdict).toBe('pass');
    expect(exitCodeOf(report)).toBe(0);
  });

  test('cases the kit cannot place make the run incomplete, or failed when one of them failed', () => {
    const stray = {
      ...kitCase({
        binding: 'jsonrpc',
        requirement: 'x',
        rule: 'R1',
        state: 'passed',
        noMeta: true,
      }),
      name: '[direct] R1-extension-uri: in process',
    };
    const incomplete = aggregate({ cases: [stray], runErrors: [] }, options);
    expect(incomplete.unattributed).toHaveLength(1);
    expect(incomplete.verdict).toBe('incomplete');
    expect(incomplete.runErrors.join()).toContain('no kit metadata');
    expect(exitCodeOf(incomplete)).toBe(1);
    const failed = aggregate({ cases: [{ ...stray, state: 'failed' }], runErrors: [] }, options);
    expect(failed.verdict).toBe('fail');
  });

  test('run errors make a run with no failure incomplete, and so does a run where every case was skipped', () => {
    const passing = kitCase({
      binding: 'jsonrpc',
      requirement: 'R1-extension-uri',
      rule: 'R1',
      state: 'passed',
    });
    const broken = aggregate(
      { cases: [passing], runErrors: ['src/scenarios/x.test.ts: SyntaxError'] },
      options,
    );
    expect(broken.verdict).toBe('incomplete');
    const skipped = kitCase({
      binding: 'jsonrpc',
      requirement: 'R1-extension-uri',
      rule: 'R1',
      state: 'skipped',
      notObservable: 'x',
    });
    const allSkipped = aggregate({ cases: [skipped], runErrors: [] }, options);
    expect(allSkipped.verdict).toBe('incomplete');
    expect(allSkipped.runErrors).toEqual(['no case ran against the agent: every case was skipped']);
    expect(aggregate({ cases: [passing], runErrors: [] }, options).verdict).toBe('pass');
  });
});
