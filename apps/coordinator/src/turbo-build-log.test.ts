import { describe, expect, it } from 'vitest';
import { TurboBuildLog } from '../scripts/turbo-build-log.mjs';

// What the root npm scripts print while turbo builds (issue 11): nothing when
// every task is cached, each task as it starts when one is not, and the
// failing task's output on failure. The lines are turbo 2's `--json` output.

const turbo = (text: string, level = 'info', timestamp = 1000) =>
  JSON.stringify({ source: 'turbo', level, timestamp, text });
const task = (source: string, text: string, timestamp = 1000) =>
  JSON.stringify({ source, level: 'stdout', timestamp, text });

const BANNER = [
  turbo(''),
  turbo('   • turbo 2.11.11'),
  turbo('   • Packages in scope: @a2a-reminders/coordinator'),
  turbo('   • Running build in 1 package'),
  turbo('   • Remote caching disabled'),
];

function read(lines: readonly string[], exitCode: number) {
  const progress: string[] = [];
  const log = new TurboBuildLog((line) => progress.push(line), ['@a2a-reminders/coordinator']);
  for (const line of lines) log.take(line);
  return { progress, closing: log.finish(exitCode) };
}

describe('the turbo build log', () => {
  it('prints nothing when every task comes from the cache', () => {
    const { progress, closing } = read(
      [
        ...BANNER,
        task('@a2a-reminders/core#build', 'cache hit, replaying logs 1d38'),
        task('@a2a-reminders/core#build', '> tsc -p tsconfig.build.json'),
        task('@a2a-reminders/coordinator#build', 'cache hit, replaying logs 55c3'),
        turbo(' Tasks:    2 successful, 2 total'),
        turbo('Cached:    2 cached, 2 total'),
        turbo('  Time:    212ms >>> FULL TURBO'),
      ],
      0,
    );
    expect(progress).toEqual([]);
    expect(closing).toEqual([]);
  });

  it('names each task as it starts, then how long the build took', () => {
    const { progress, closing } = read(
      [
        ...BANNER,
        task('@a2a-reminders/proto#build', 'cache hit, replaying logs 724b', 1000),
        task('@a2a-reminders/core#build', 'cache miss, executing 1d38', 1100),
        task('@a2a-reminders/core#build', '> tsc -p tsconfig.build.json', 1200),
        task('@a2a-reminders/coordinator#build', 'cache miss, executing 55c3', 9000),
        turbo(' Tasks:    3 successful, 3 total', 'info', 53_500),
      ],
      0,
    );
    expect(progress).toEqual([
      'building @a2a-reminders/coordinator with turbo (a first build takes a minute or two)',
      '  @a2a-reminders/core#build',
      '  @a2a-reminders/coordinator#build',
    ]);
    expect(closing).toEqual(['built 2 of 3 tasks in 52.5 s (1 from the cache)']);
  });

  it("prints the failing task's output and turbo's error when the build fails", () => {
    const { closing } = read(
      [
        ...BANNER,
        task('@a2a-reminders/core#build', 'cache hit, replaying logs 1d38'),
        task('@a2a-reminders/coordinator#build', 'cache miss, executing 6442'),
        task('@a2a-reminders/coordinator#build', '> tsc -p tsconfig.build.json'),
        task(
          '@a2a-reminders/coordinator#build',
          "src/x.ts(1,7): error TS2322: Type 'string' is not assignable to type 'number'.",
        ),
        turbo('command (apps/coordinator) /usr/bin/npm run build exited (2)', 'error'),
        turbo(' Tasks:    1 successful, 2 total'),
        turbo('Failed:    @a2a-reminders/coordinator#build'),
      ],
      2,
    );
    expect(closing).toEqual([
      'build failed (turbo exited 2): @a2a-reminders/coordinator#build',
      '-- @a2a-reminders/coordinator#build',
      '> tsc -p tsconfig.build.json',
      "src/x.ts(1,7): error TS2322: Type 'string' is not assignable to type 'number'.",
      'command (apps/coordinator) /usr/bin/npm run build exited (2)',
    ]);
  });
});
