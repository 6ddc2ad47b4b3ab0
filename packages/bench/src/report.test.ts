import { describe, expect, it } from 'vitest';
import type { ArmName } from './arms.js';
import {
  armTable,
  errorsLine,
  followUpLines,
  memoryLines,
  plainReminderLines,
  publishLines,
} from './report.js';
import type { Results, SliceResult } from './slice.js';

function slice(arm: ArmName, extra: Partial<SliceResult>): SliceResult {
  return {
    arm,
    round: 0,
    requests: 1,
    errors: 0,
    errorSamples: [],
    elapsedMs: 1,
    reqPerSec: 1,
    p50Ms: 1,
    p99Ms: 1,
    clientCpuUsPerReq: 1,
    serverCpuUsPerReq: 1,
    serverMainCpuUsPerReq: 1,
    serverCpuPct: 1,
    foreignCpuPct: 0,
    attempts: 1,
    ...extra,
  };
}

describe('armTable', () => {
  it("prints the main thread's share of the server CPU beside the whole", () => {
    const results: Results = new Map([
      [
        'rest-get',
        [
          slice('rest-get', { serverCpuUsPerReq: 150, serverMainCpuUsPerReq: 131 }),
          slice('rest-get', { serverCpuUsPerReq: 170, serverMainCpuUsPerReq: 137, round: 1 }),
        ],
      ],
    ]);
    const [header, row] = armTable(results).split('\n');
    const columns = (line = '') => line.split(/\s{2,}/);
    const at = columns(header).indexOf('main thread µs/req');
    expect(at).toBe(columns(header).indexOf('server CPU µs/req') + 1);
    expect(columns(row)[at - 1]).toBe('160 (150–170)');
    expect(columns(row)[at]).toBe('134 (131–137)');
  });
});

describe('summary lines', () => {
  it('judges errors against 0', () => {
    expect(errorsLine(0)).toContain('goal 0: PASS');
    expect(errorsLine(2)).toContain('goal 0: FAIL');
  });

  it('judges the plain arms live reminders against the quota and what the turns left', () => {
    const results: Results = new Map([
      [
        'jsonrpc-inject-plain',
        [slice('jsonrpc-inject-plain', { maxLiveReminders: 21, plainLeft: 0 })],
      ],
      ['grpc-inject-plain', [slice('grpc-inject-plain', { maxLiveReminders: 30, plainLeft: 0 })]],
    ]);
    const [live, left] = plainReminderLines(results, 64);
    expect(live).toContain('ended 30 ');
    expect(live).toContain('no inject met the quota: PASS');
    expect(left).toContain(': 0 (goal 0: PASS)');
    const full: Results = new Map([
      ['rest-inject-plain', [slice('rest-inject-plain', { maxLiveReminders: 64, plainLeft: 3 })]],
    ]);
    const [fullLive, fullLeft] = plainReminderLines(full, 64);
    expect(fullLive).toContain('no inject met the quota: FAIL');
    expect(fullLeft).toContain(': 3 (goal 0: FAIL)');
  });

  it('prints nothing for arms that did not run', () => {
    expect(plainReminderLines(new Map(), 64)).toEqual([]);
    expect(followUpLines(new Map())).toEqual([]);
  });

  it('reports the workaround histories as context', () => {
    const history = (meanMessages: number, maxMessages: number) =>
      slice('rest-send-reminder', { followUpHistory: { tasks: 1000, meanMessages, maxMessages } });
    const [line] = followUpLines(
      new Map([['rest-send-reminder', [history(13, 14), history(9, 10)]]]),
    );
    expect(line).toContain('(info)');
    expect(line).toContain('11.0 (9.0–13.0)');
    expect(line).toContain('at most 14');
  });
});

describe('publishLines', () => {
  it("gives the publish's share of the displacing inject per binding, and the ratio without it", () => {
    const inject = (round: number, serverCpuUsPerReq: number, publishCpuUsPerReq: number) =>
      slice('rest-inject', { round, serverCpuUsPerReq, publishCpuUsPerReq });
    const get = (round: number, serverCpuUsPerReq: number) =>
      slice('rest-get', { round, serverCpuUsPerReq });
    const results: Results = new Map([
      ['rest-inject', [inject(0, 220, 10), inject(1, 260, 20), inject(2, 230, 14)]],
      ['rest-get', [get(0, 200), get(1, 200), get(2, 250)]],
      // A binding whose displacing arm did not run has no line.
      ['grpc-get', [slice('grpc-get', {})]],
    ]);
    const [head, rest, ...others] = publishLines(results);
    expect(head).toContain('(info)');
    expect(others).toEqual([]);
    expect(rest).toContain('REST: 14 (10–20) µs/req of 230 (220–260)');
    // (220 − 10) / 200, (260 − 20) / 200, (230 − 14) / 250.
    expect(rest).toContain('1.05 1.20 0.86, median 1.05 (0.86–1.20)');
  });

  it('matches rounds, and leaves out the ratio when GetTask did not run', () => {
    const results: Results = new Map([
      [
        'grpc-inject',
        [
          slice('grpc-inject', { serverCpuUsPerReq: 230, publishCpuUsPerReq: 12 }),
          slice('grpc-inject', { round: 1, serverCpuUsPerReq: 250, publishCpuUsPerReq: 10 }),
        ],
      ],
      ['grpc-get', [slice('grpc-get', { serverCpuUsPerReq: 200 })]],
      ['jsonrpc-inject', [slice('jsonrpc-inject', { publishCpuUsPerReq: 9 })]],
    ]);
    const [, jsonRpc, grpc] = publishLines(results);
    expect(jsonRpc).toBe('  JSON-RPC: 9 (9–9) µs/req of 1 (1–1)');
    // Round 2 has no GetTask: its ratio is n/a and the median is round 1's, (230 − 12) / 200.
    expect(grpc).toContain('gRPC: 11 (10–12) µs/req of 240 (230–250)');
    expect(grpc).toContain('1.09 n/a, median 1.09 (1.09–1.09)');
  });

  it('prints nothing when no displacing arm ran', () => {
    expect(publishLines(new Map([['rest-get', [slice('rest-get', {})]]]))).toEqual([]);
  });
});

describe('memory lines', () => {
  it('judges the whole residual and says how much of it the stored batches hold', () => {
    const text = memoryLines({
      reminders: 10_000,
      bodyChars: 100,
      before: 40e6,
      afterInject: 47e6,
      afterDisplace: 59e6,
      afterEnd: 41e6,
      sdkFreedPerGroup: 1e6,
      bytesPerPending: 700,
      bytesPerDisplacedRecord: 1200,
      residual: 3e6,
      storedBatches: 2.5e6,
      tasksWithStoredBatch: 200,
    });
    expect(text).toContain('3.0 MB = 7.5 % of before (goal within 5 %: FAIL)');
    expect(text).toContain('200 tasks: 2.5 MB; the rest 0.5 MB = 1.3 % of before (info)');
  });
});
