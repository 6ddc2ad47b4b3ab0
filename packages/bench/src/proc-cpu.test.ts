import { describe, expect, it } from 'vitest';
import { processThreadsCpu, statTextCpuUs } from './proc-cpu.js';

describe('statTextCpuUs', () => {
  it('reads utime and stime past a command name that holds spaces and parentheses', () => {
    // Fields 1-15 of proc(5): pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime …
    const stat = '4242 (node (a) b) S 1 4242 4242 0 -1 4194560 900 0 3 0 250 50 0 0 20 0 11';
    expect(statTextCpuUs(stat)).toBe(3_000_000);
  });
});

describe.skipIf(process.platform !== 'linux')('processThreadsCpu', () => {
  it("charges work done on this thread to the main thread's figure and to the whole", async () => {
    const before = await processThreadsCpu(process.pid);
    // Spin on this (the main) thread until its own figure has moved by 50 ms of CPU,
    // bounded by the whole process's CPU, not by time.
    const start = process.cpuUsage();
    let after = before;
    let spent = 0;
    while (after.mainUs - before.mainUs < 50_000 && spent < 5_000_000) {
      let x = 0;
      for (let i = 0; i < 1_000_000; i += 1) x += i % 7;
      expect(x).toBeGreaterThan(0);
      after = await processThreadsCpu(process.pid);
      const used = process.cpuUsage(start);
      spent = used.user + used.system;
    }
    expect(after.mainUs - before.mainUs).toBeGreaterThanOrEqual(50_000);
    // The whole holds the main thread's share (separate tick counters: one tick of slack).
    expect(after.allUs - before.allUs).toBeGreaterThanOrEqual(
      after.mainUs - before.mainUs - 10_000,
    );
  });
});
