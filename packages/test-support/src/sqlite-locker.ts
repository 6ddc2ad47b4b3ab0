import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/** A child process holding a SQLite file's write lock; see {@link lockSqliteFromAnotherProcess}. */
export interface SqliteLock {
  /** Commits and ends the child; resolves with its exit code and every line it printed. */
  release(): Promise<{ readonly exitCode: number | null; readonly lines: readonly string[] }>;
  /** Kills the child if it still runs (a test's clean-up). */
  kill(): void;
}

/** Opens the file, runs BEGIN EXCLUSIVE and says so; COMMIT once its stdin ends. */
const LOCKER = `
const Database = require(process.argv[1]);
const db = new Database(process.argv[2], { timeout: 60000 });
db.exec('BEGIN EXCLUSIVE');
process.stdout.write('LOCKED\\n');
process.stdin.resume();
process.stdin.on('end', () => {
  db.exec('COMMIT');
  db.close();
  process.stdout.write('RELEASED\\n');
});
`;

/**
 * Resolves once another process holds the SQLite file's write lock, as a
 * backup tool or a second writer would (`driverPath`: the resolved
 * `better-sqlite3` entry the child loads).
 */
export async function lockSqliteFromAnotherProcess(
  file: string,
  driverPath: string,
): Promise<SqliteLock> {
  const child = spawn(process.execPath, ['-e', LOCKER, driverPath, file], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  const lines: string[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => lines.push(line));
  try {
    await new Promise<void>((resolve, reject) => {
      const poll = setInterval(() => {
        if (lines.includes('LOCKED')) {
          clearInterval(poll);
          resolve();
        }
      }, 10);
      void exited.then((code) => {
        clearInterval(poll);
        reject(new Error(`the locking process exited (${code}) before it held the lock`));
      });
    });
  } catch (error) {
    kill();
    throw error;
  }
  return {
    async release() {
      child.stdin.end();
      return { exitCode: await exited, lines: [...lines] };
    },
    kill,
  };
}
