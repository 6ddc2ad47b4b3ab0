import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAIN_USAGE } from './cli-args.js';
import { closedPort } from './testing/closed-port.js';

// Issue 11: `npm run -s coordinator` printed turbo's banner and summary on
// every call, so a one-line error was eleven lines. The root scripts now build
// through scripts/turbo-build.mjs, which prints nothing when every task is
// cached.

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BUILD = fileURLToPath(new URL('../scripts/turbo-build.mjs', import.meta.url));

function run(command: string, args: readonly string[]) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(command, [...args], { cwd: ROOT, timeout: 110_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

describe('npm run -s coordinator', () => {
  beforeAll(async () => {
    // A build that has work to do prints its progress on stderr, by design:
    // build first, so the calls below find every task in turbo's cache.
    const built = await run(process.execPath, [BUILD, '@a2a-reminders/coordinator']);
    expect(built.code, built.stderr).toBe(0);
  }, 120_000);

  it('prints only the usage, on stderr, and exits 2 without a command', async () => {
    const { code, stdout, stderr } = await run('npm', ['run', '-s', 'coordinator']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(`error: a command is required\n\n${MAIN_USAGE}\n`);
  });

  it('reports an unreachable worker in one line, with its URL and the cause', async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}`;
    const { code, stdout, stderr } = await run('npm', [
      'run',
      '-s',
      'coordinator',
      '--',
      'list',
      '--url',
      url,
      '--task-id',
      'task-1',
    ]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      `error: cannot reach the agent card at ${url}/.well-known/agent-card.json: ` +
        `connect ECONNREFUSED 127.0.0.1:${port}\n`,
    );
  });
});
