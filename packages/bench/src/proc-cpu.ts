import { readFile } from 'node:fs/promises';

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const TICKS_PER_SEC = 100;

/** utime + stime (fields 14 and 15) of a /proc `stat` file's text, in microseconds. */
export function statTextCpuUs(stat: string): number {
  // The command name (field 2) may hold spaces and ')'; fields after it start past its last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1_000_000) / TICKS_PER_SEC;
}

async function statCpuUs(path: string): Promise<number> {
  return statTextCpuUs(await readFile(path, 'utf8'));
}

/**
 * CPU time the process has used so far, all threads (utime + stime, fields
 * 14 and 15 of /proc/<pid>/stat), in microseconds; so GC helper threads count.
 */
export function processCpuUs(pid: number): Promise<number> {
  return statCpuUs(`/proc/${pid}/stat`);
}

/** The process's CPU so far, all threads, and its main thread's alone (the JS thread), µs. */
export interface ThreadsCpu {
  readonly allUs: number;
  readonly mainUs: number;
}

/**
 * {@link processCpuUs} and the main thread's share: the rest is V8's helper
 * threads (concurrent marking and sweeping, compilation) and libuv's, whose
 * work lands in whichever window it happens to run in (README, "The mounting
 * pair").
 */
export async function processThreadsCpu(pid: number): Promise<ThreadsCpu> {
  const [allUs, mainUs] = await Promise.all([
    processCpuUs(pid),
    statCpuUs(`/proc/${pid}/task/${pid}/stat`),
  ]);
  return { allUs, mainUs };
}
