import { describe, expect, it } from 'vitest';
import { ARMS, interleavedGroup } from './arms.js';
import { goalText, type RatioDef, ratioDefs, verdict } from './goals.js';

describe('verdict', () => {
  const cpu = { kind: 'max', target: 1.1, fail: 1.25 } as const;
  const reqs = { kind: 'min', target: 1.5 } as const;

  it('passes a median that meets the target, whatever the rounds did', () => {
    expect(verdict(cpu, { median: 1.1, min: 1.0, max: 1.4 })).toBe('PASS');
    expect(verdict(reqs, { median: 1.5, min: 1.2, max: 1.6 })).toBe('PASS');
  });

  it('calls a miss short of the fail threshold a missed target', () => {
    expect(verdict(cpu, { median: 1.2, min: 1.15, max: 1.22 })).toBe('target missed (not failed)');
  });

  it('fails at the target where the goal gives no fail threshold', () => {
    expect(verdict(reqs, { median: 1.2, min: 1.19, max: 1.21 })).toBe('FAIL (every round)');
    expect(verdict(reqs, { median: 1.45, min: 1.4, max: 1.5 })).toBe('FAIL (within band: re-run)');
  });

  it('asks for a re-run when the failure is smaller than the round band', () => {
    expect(verdict(reqs, { median: 1.45, min: 1.3, max: 1.55 })).toBe('FAIL (within band: re-run)');
  });

  it('fails outright when no round met the fail threshold', () => {
    expect(verdict(cpu, { median: 1.5, min: 1.3, max: 1.9 })).toBe('FAIL (every round)');
    expect(verdict(reqs, { median: 1.0, min: 0.9, max: 1.4 })).toBe('FAIL (every round)');
  });

  it('gives no verdict on a ratio of an arm that did not run', () => {
    expect(verdict(cpu, { median: Number.NaN, min: Number.NaN, max: Number.NaN })).toBe('n/a');
  });

  it('prints the goal with its fail threshold', () => {
    expect(goalText(cpu)).toBe('≤ 1.1 (fail > 1.25)');
    expect(goalText(reqs)).toBe('≥ 1.5');
  });
});

describe('ratioDefs (issue 12 goals)', () => {
  const defs = ratioDefs();
  const of = (binding: string, label: string): RatioDef => {
    const def = defs.find((d) => d.binding === binding && d.label === label);
    if (def === undefined) throw new Error(`no ratio ${binding} ${label}`);
    return def;
  };

  it('sets the SDK write beside GetTask and the plain inject beside it, as context only', () => {
    for (const binding of ['JSON-RPC', 'REST', 'gRPC']) {
      for (const [label, num, den] of [
        ['SDK CreateTaskPushNotificationConfig/GetTask CPU µs/req', 'sdk-write', 'get'],
        ['SDK CreateTaskPushNotificationConfig/GetTask p50', 'sdk-write', 'get'],
        [
          'Inject (nothing displaced)/SDK CreateTaskPushNotificationConfig CPU µs/req',
          'inject-plain',
          'sdk-write',
        ],
      ] as const) {
        const def = of(binding, label);
        expect([ARMS[def.num].kind, ARMS[def.den].kind]).toEqual([num, den]);
        expect([ARMS[def.num].bindings, ARMS[def.den].bindings]).toEqual([[binding], [binding]]);
        expect(def.goal).toBeUndefined();
        expect(def.anchor).toBe('context (SDK write)');
      }
    }
  });

  it('judges both inject arms against GetTask on every binding', () => {
    for (const binding of ['JSON-RPC', 'REST', 'gRPC']) {
      for (const inject of ['Inject (displacing)', 'Inject (nothing displaced)']) {
        const cpu = of(binding, `${inject}/GetTask CPU µs/req`);
        expect(cpu.goal).toEqual({ kind: 'max', target: 1.1, fail: 1.25 });
        expect(ARMS[cpu.num].kind).toBe(
          inject === 'Inject (displacing)' ? 'inject' : 'inject-plain',
        );
        expect(ARMS[cpu.den].kind).toBe('get');
        expect(of(binding, `${inject}/GetTask p50`).goal).toEqual({ kind: 'max', target: 1.1 });
        expect(of(binding, `${inject}/GetTask p99`).goal).toEqual({ kind: 'max', target: 1.25 });
        const reqs = of(binding, `${inject}/GetTask req/s`);
        if (binding === 'gRPC') expect(reqs.goal).toBeUndefined();
        else expect(reqs.goal).toEqual({ kind: 'min', target: 0.95, fail: 0.9 });
      }
    }
  });

  it('wants both inject arms at 1.5× the SendMessage workaround req/s, its CPU as context', () => {
    for (const binding of ['JSON-RPC', 'REST', 'gRPC']) {
      for (const inject of ['Inject (displacing)', 'Inject (nothing displaced)']) {
        const def = of(binding, `${inject}/SendMessage workaround req/s`);
        expect(def.goal).toEqual({ kind: 'min', target: 1.5 });
        expect(ARMS[def.den].kind).toBe('send-reminder');
        expect(ARMS[def.den].bindings).toEqual(ARMS[def.num].bindings);
      }
      const cpu = of(binding, 'SendMessage workaround/Inject (displacing) CPU µs/req');
      expect(cpu.goal).toBeUndefined();
      expect(cpu.anchor).toBe('context');
    }
  });

  it('holds mounting the extension to 3 % of stock GetTask, in req/s and CPU', () => {
    for (const binding of ['JSON-RPC', 'REST']) {
      expect(of(binding, 'GetTask mounted/stock req/s (mounting costs ≤ 3 %)').goal).toEqual({
        kind: 'min',
        target: 0.97,
      });
      expect(of(binding, 'GetTask mounted/stock CPU µs/req (mounting costs ≤ 3 %)').goal).toEqual({
        kind: 'max',
        target: 1.03,
      });
    }
  });

  it('judges mounting on the pair alternated alone, not on the GetTask among the injects', () => {
    const prefix = { 'JSON-RPC': 'jsonrpc', REST: 'rest' } as const;
    for (const binding of ['JSON-RPC', 'REST'] as const) {
      for (const metric of ['req/s', 'CPU µs/req']) {
        const def = of(binding, `GetTask mounted/stock ${metric} (mounting costs ≤ 3 %)`);
        expect([def.num, def.den]).toEqual([
          `${prefix[binding]}-get-mounted`,
          `${prefix[binding]}-get-stock`,
        ]);
        expect(interleavedGroup(def.num)).toEqual([def.den, def.num]);
      }
    }
    expect(defs.some((d) => d.binding === 'gRPC' && d.label.startsWith('GetTask mounted'))).toBe(
      false,
    );
  });

  it('puts every ratio on arms of its own binding', () => {
    for (const def of defs) {
      expect(ARMS[def.num].bindings).toContain(def.binding);
      expect(ARMS[def.den].bindings).toContain(def.binding);
    }
  });
});
