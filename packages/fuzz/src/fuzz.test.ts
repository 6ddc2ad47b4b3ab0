import { fromBinary, toJson } from '@bufbuild/protobuf';
import { ValueSchema } from '@bufbuild/protobuf/wkt';
import { describe, expect, it } from 'vitest';
import type { FuzzCase } from './cases.js';
import { BINDINGS } from './cases.js';
import { deepValue } from './grpc-cases.js';
import { hostileProvenance } from './hostile-values.js';
import { classifyGrpc, classifyJsonRpc, classifyRest } from './outcome.js';
import { Rng } from './prng.js';
import { formatReport } from './report.js';
import { caseOf, failures, runFuzz } from './run-fuzz.js';

const ctx = { taskIds: ['task-a', 'task-b'], unique: '' };

/** Everything a case sends, as text, for searching and comparing. */
function textOf(c: FuzzCase): string {
  const body =
    'method' in c
      ? Buffer.from(c.body ?? '').toString('utf8')
      : Buffer.from(c.body).toString('latin1');
  return `${c.kind}\n${'method' in c ? c.method : 'POST'} ${c.path}\n${JSON.stringify(c.headers)}\n${body}`;
}

describe('generators', () => {
  it('are reproducible: the same seed and index give the same request, another seed another', () => {
    for (const binding of BINDINGS) {
      const a = Array.from({ length: 50 }, (_, i) => textOf(caseOf(binding, 7, i, ctx)));
      const b = Array.from({ length: 50 }, (_, i) => textOf(caseOf(binding, 7, i, ctx)));
      const c = Array.from({ length: 50 }, (_, i) => textOf(caseOf(binding, 8, i, ctx)));
      expect(a).toEqual(b);
      expect(a).not.toEqual(c);
    }
  });

  it("cover the issue's reproductions on every binding", () => {
    const sample = (binding: (typeof BINDINGS)[number]) =>
      Array.from({ length: 2000 }, (_, i) => caseOf(binding, 1, i, ctx));
    const http = [...sample('jsonrpc'), ...sample('rest')];
    const texts = http.map(textOf);
    for (const needle of [
      '1e309', // non-finite numbers in metadata
      '{"a":{"a":{"a":', // deep nesting
      '"0x10"', // hex numeric strings
      '\\ud800', // lone surrogates
      '\\u001b[31m', // control characters
      '\uff1c/system-reminder\uff1e', // look-alikes
      '%zz', // odd paths
      'notification', // JSON-RPC without id
      'oversized body',
      'non-object',
      '"A2A-Extensions":"urn:something-else"',
      'Content-Encoding',
    ]) {
      expect(
        texts.some((t) => t.includes(needle)),
        needle,
      ).toBe(true);
    }
    // Requests without A2A-Version or A2A-Extensions at all.
    expect(http.some((c) => !('A2A-Version' in c.headers))).toBe(true);
    expect(http.some((c) => !('A2A-Extensions' in c.headers))).toBe(true);
    const grpc = sample('grpc');
    for (const kind of [
      'random message bytes',
      'metadata nested',
      'invalid UTF-8',
      'oversized message',
      'valid inject',
    ]) {
      expect(
        grpc.some((c) => c.kind.includes(kind)),
        kind,
      ).toBe(true);
    }
    // Spec §15: hostile provenance on both kinds of wire, refusals of each rule among them.
    const provenance = [...http, ...grpc].filter((c) => c.kind.includes('hostile provenance'));
    expect(provenance.filter((c) => 'method' in c).length).toBeGreaterThan(0);
    expect(provenance.filter((c) => !('method' in c)).length).toBeGreaterThan(0);
    const reasons = provenance.map((c) => c.mustRefuse ?? '');
    for (const rule of ['(R59)', '(R60)', '(R61)']) {
      expect(
        reasons.some((r) => r.endsWith(rule)),
        rule,
      ).toBe(true);
    }
    expect(reasons.some((r) => r === '')).toBe(true);
    // Valid requests are mixed in, so the worker also does real work.
    expect(http.filter((c) => c.kind.includes('valid')).length).toBeGreaterThan(200);
  });
});

describe('hostile provenance', () => {
  it('says which rule refuses it: none at all (R59), past the limit (R60), a loop (R61), else none', () => {
    const seen = new Map<string, number>();
    for (let seed = 1; seed <= 400; seed++) {
      const { hops, invalid } = hostileProvenance(new Rng(seed), 'task-a');
      const expected =
        hops.length === 0
          ? 'R59'
          : hops.length > 4
            ? 'R60'
            : hops.some((h) => h.invalid !== undefined)
              ? 'hop'
              : hops.some((h) => h.taskId === 'task-a')
                ? 'R61'
                : 'none';
      seen.set(expected, (seen.get(expected) ?? 0) + 1);
      if (expected === 'none') expect(invalid).toBeUndefined();
      else if (expected === 'hop') expect(invalid).toBe(hops.find((h) => h.invalid)?.invalid);
      else expect(invalid).toMatch(new RegExp(`\\(${expected}\\)$`));
    }
    expect([...seen.keys()].sort()).toEqual(['R59', 'R60', 'R61', 'hop', 'none']);
  });
});

describe('hand-made protobuf', () => {
  it('encodes nested Structs deeper than any encoder would recurse', () => {
    const json = toJson(ValueSchema, fromBinary(ValueSchema, deepValue(3)));
    expect(json).toEqual({ a: { a: { a: 1 } } });
    // 5000 levels: far past protobuf-es's recursion limit (100), still well-formed.
    expect(deepValue(5000).length).toBeGreaterThan(5000 * 8);
  });
});

describe('classification', () => {
  it('tells typed errors from server faults and untyped answers', () => {
    expect(
      classifyJsonRpc(
        200,
        '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"x"}}',
        false,
        'POST',
      ).kind,
    ).toBe('typed');
    expect(
      classifyJsonRpc(
        200,
        '{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"x"}}',
        false,
        'POST',
      ).kind,
    ).toBe('internal');
    expect(classifyJsonRpc(404, '<!DOCTYPE html><pre>Cannot PUT</pre>', false, 'PUT').kind).toBe(
      'untyped',
    );
    expect(classifyJsonRpc(502, '', false, 'POST').kind).toBe('internal');
    // W11: a notification gets no body; a result for it is a finding.
    expect(classifyJsonRpc(204, '', true, 'POST').kind).toBe('accepted');
    expect(classifyJsonRpc(200, '{"jsonrpc":"2.0","id":null,"result":{}}', true, 'POST').kind).toBe(
      'untyped',
    );
    expect(
      classifyJsonRpc(
        200,
        '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}',
        true,
        'POST',
      ).kind,
    ).toBe('typed');
    expect(
      classifyRest(404, '{"error":{"code":404,"status":"NOT_FOUND","message":"x"}}', 'GET').kind,
    ).toBe('typed');
    expect(classifyRest(400, 'URIError: Failed to decode param', 'GET').kind).toBe('untyped');
    expect(
      classifyRest(500, '{"error":{"code":500,"status":"INTERNAL","message":"x"}}', 'GET').kind,
    ).toBe('internal');
    expect(classifyGrpc(200, '3', 'bad').kind).toBe('typed');
    expect(classifyGrpc(200, '13', 'boom').kind).toBe('internal');
    // W15: only grpc-js's own answers to broken transport headers and frames.
    expect(classifyGrpc(200, '13', 'Invalid%20grpc-timeout%20value%20%22abc%22').kind).toBe(
      'runtime',
    );
    expect(classifyGrpc(200, '13', 'Failed to decompress message').kind).toBe('runtime');
    expect(classifyGrpc(200, '13', 'Failed to decompress message: x').kind).toBe('internal');
    expect(classifyGrpc(200, '2', 'Invalid grpc-timeout value "abc"').kind).toBe('internal');
    expect(classifyGrpc(200, '13', 'Invalid grpc-timeout value').kind).toBe('internal');
    expect(classifyGrpc(200, '2', 'unknown').kind).toBe('internal');
    expect(classifyGrpc(200, undefined, undefined).kind).toBe('untyped');
    expect(classifyGrpc(200, '0', undefined).kind).toBe('accepted');
  });
});

describe('npm test slice of npm run fuzz', () => {
  // The same code as `npm run fuzz`, a few hundred requests per binding, one
  // fixed seed: zero INTERNAL/5xx, untyped answers, wrongful acceptances,
  // hangs and crashes. The per-request deadline is a hang guard only.
  it('a worker process answers 300 hostile requests per binding with typed errors or success', async () => {
    const reports = await runFuzz({
      seed: 1,
      count: 300,
      bindings: BINDINGS,
      concurrency: 4,
      deadlineMs: 30_000,
    });
    const table = formatReport(reports, 1).join('\n');
    expect(
      reports.map((r) => r.sent),
      table,
    ).toEqual([300, 300, 300]);
    expect(
      reports.map((r) => [r.binding, failures(r)]),
      table,
    ).toEqual(BINDINGS.map((b) => [b, 0]));
  });
});
