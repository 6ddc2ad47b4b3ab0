import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseReminderStore } from './database-reminder-store.js';
import type { ReminderDialect } from './dialect.js';
import type { TestDatabase } from './test-database.js';
import { createTestDatabase } from './test-database.js';

// R19 across processes, not only across promises: one process takes turn
// boundaries on a task while another injects into the same task, each with
// its own connection to the same database. Every reminder must be surfaced
// in exactly one turn: never twice, never lost.

const CHILD = fileURLToPath(new URL('../fixtures/r19-process.mjs', import.meta.url));
/** Below the retained-final cap (R48: 128), so every record is still there to check. */
const INJECTS = 120;

interface Child {
  readonly process: ChildProcess;
  readonly lines: unknown[];
  /** Resolves with the exit code once stdout is drained. */
  readonly exited: Promise<number | null>;
  /** Resolves once a line matching `test` was printed. */
  line(test: (value: Record<string, unknown>) => boolean): Promise<void>;
}

function start(args: readonly string[]): Child {
  const child = spawn(process.execPath, [CHILD, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: unknown[] = [];
  const waiters: Array<{ test: (v: Record<string, unknown>) => boolean; resolve: () => void }> = [];
  const reader = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  reader.on('line', (text) => {
    const value = JSON.parse(text) as Record<string, unknown>;
    lines.push(value);
    for (const w of waiters.filter((w) => w.test(value))) w.resolve();
  });
  const closed = new Promise<void>((resolve) => reader.once('close', resolve));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => closed.then(() => resolve(code))),
  );
  return {
    process: child,
    lines,
    exited,
    line: (test) =>
      new Promise<void>((resolve, reject) => {
        if (lines.some((l) => test(l as Record<string, unknown>))) resolve();
        else waiters.push({ test, resolve });
        exited.then((code) => reject(new Error(`child exited (${code}) before the line`)));
      }),
  };
}

describe.each<ReminderDialect>(['sqlite', 'postgres'])(
  'R19 across two processes on %s',
  (dialect) => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await createTestDatabase(dialect);
    });
    afterAll(async () => {
      await database?.drop();
    });

    it('surfaces each reminder injected by one process in exactly one turn of the other', async () => {
      const taskId = `r19-${dialect}`;
      const turns = start(['turns', database.url, taskId]);
      let injector: Child | undefined;
      try {
        await turns.line((l) => l.ready === true);
        injector = start(['inject', database.url, taskId, String(INJECTS)]);
        expect(await injector.exited).toBe(0);
        turns.process.stdin?.write('stop\n');
        expect(await turns.exited).toBe(0);
      } finally {
        // A failed run leaves no process behind.
        turns.process.kill('SIGKILL');
        injector?.process.kill('SIGKILL');
      }

      const acked = (injector?.lines ?? []).map((l) => (l as { acked: string }).acked);
      expect(acked).toHaveLength(INJECTS);
      const boundaries = turns.lines.slice(1) as Array<{ turn: number; ids: string[] }>;
      // Turn numbers are consecutive: no boundary was lost or taken twice.
      expect(boundaries.map((b) => b.turn)).toEqual(boundaries.map((_, i) => i + 1));
      const surfaced = boundaries.flatMap((b) => b.ids);
      // ttlTurns 1: each reminder in exactly one turn, none twice, none lost.
      expect([...surfaced].sort()).toEqual([...acked].sort());
      expect(new Set(surfaced).size).toBe(surfaced.length);

      // The stored records agree with what the turns process saw.
      const db = await database.open();
      try {
        const snapshot = await new DatabaseReminderStore(db).read({
          tenant: '',
          owner: 'unknown',
          taskId,
        });
        const turnOf = new Map(boundaries.flatMap((b) => b.ids.map((id) => [id, b.turn] as const)));
        expect(snapshot?.turn).toBe(boundaries.length);
        expect(snapshot?.reminders).toHaveLength(INJECTS);
        for (const r of snapshot?.reminders ?? []) {
          expect({
            id: r.id,
            state: r.state,
            firstTurn: r.firstTurn,
            turnsSurfaced: r.turnsSurfaced,
          }).toEqual({
            id: r.id,
            state: 'EXPIRED',
            firstTurn: turnOf.get(r.id),
            turnsSurfaced: 1,
          });
        }
        // How much the two processes overlapped: context for the log, not a verdict.
        const during = boundaries.filter((b) => b.ids.length > 0).length;
        console.log(`${dialect}: ${boundaries.length} turns, ${during} surfaced reminders`);
      } finally {
        await db.destroy();
      }
    }, 120_000);
  },
);
