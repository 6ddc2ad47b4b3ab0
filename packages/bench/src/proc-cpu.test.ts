import { describe, expect, it } from 'vitest';
import { processThreadsCpu, statTextCpuUs } from './proc-cpu.js';
import { serverCpuFigures } from './server-window.js';

describe('statTextCpuUs', () => {
  it('reads utime and stime past a command name that holds spaces and parentheses', () => {
    // Fields 1-15 of proc(5): pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime …
    const stat = '4242 (node (a) b) S 1 4242 4242 0 -1 4194560 900 0 3 0 250 50 0 0 20 0 11';
    expect(statTextCpuUs(stat)).toBe(3_000_000);
  });
});

describe('processThreadsCpu', () => {
  it("reads this process's whole CPU and its main thread's, the main thread's no more than the whole", async () => {
    const cpu = await processThreadsCpu(process.pid);
    expect(Number.isFinite(cpu.allUs) && Number.isFinite(cpu.mainUs)).toBe(true);
    // Separate tick counters: the main thread may be a tick ahead of the sum.
    expect(cpu.mainUs).toBeLessThanOrEqual(cpu.allUs + 10_000);
  });
});

describe('serverCpuFigures', () => {
  it('divides the whole and the main thread CPU by the requests, and the whole by the loop time', () => {
    expect(serverCpuFigures(1000, 150_000, 120_000, 100)).toEqual({
      serverCpuUsPerReq: 150,
      serverMainCpuUsPerReq: 120,
      serverCpuPct: 150,
    });
    const none = serverCpuFigures(0, 1, 1, 1);
    expect(Number.isNaN(none.serverCpuUsPerReq) && Number.isNaN(none.serverMainCpuUsPerReq)).toBe(
      true,
    );
  });
});
