import { TaskState } from '@a2a-js/sdk';
import type { Kysely, LogEvent } from 'kysely';
import { CompiledQuery, sql } from 'kysely';
import { DatabaseReminderStore } from '../database-reminder-store.js';
import type { ReminderDialect } from '../dialect.js';
import type { TestDatabase } from '../test-database.js';
import { serviceOn } from './service-driver.js';

/** One statement an operation issued, and how the engine runs it. */
export interface PlannedStatement {
  readonly sql: string;
  readonly plan: readonly string[];
}

/** The statements of one hot operation, as core's service runs it on the store. */
export interface OperationPlans {
  readonly operation: string;
  readonly statements: readonly PlannedStatement[];
}

/** Tasks and records the plans are taken over, so a scan would be visibly worse than a lookup. */
const SEED_TASKS = 2000;
const SEED_RECORDS_PER_TASK = 40;

/**
 * Seeds a database with many tasks' records, runs each hot operation through
 * core's service on a logging store, and asks the engine how it runs every
 * statement (PostgreSQL `EXPLAIN`, SQLite `EXPLAIN QUERY PLAN`).
 */
export async function hotQueryPlans(database: TestDatabase): Promise<OperationPlans[]> {
  const seedDb = await database.open();
  try {
    await seed(seedDb, database.dialect);
  } finally {
    await seedDb.destroy();
  }
  let recording: Array<{ sql: string; parameters: readonly unknown[] }> | undefined;
  const db = await database.open({
    log: (event: LogEvent) => {
      if (event.level === 'query') {
        recording?.push({ sql: event.query.sql, parameters: event.query.parameters });
      }
    },
  });
  try {
    const store = new DatabaseReminderStore(db);
    const s = serviceOn(store, { maxRetainedFinalRemindersPerTask: 2 });
    const task = await s.working('plans-task');
    const idle = await s.working('plans-idle');
    await s.turn(idle);
    await s.inject(task.id, { id: 'r0', body: 'first', dedupeKey: 'k' });
    for (let i = 0; i < 3; i += 1) await s.inject(task.id, { id: `c${i}`, body: 'cancel me' });
    await s.cancel(task.id, 'c0');
    await s.cancel(task.id, 'c1');

    const operations: Array<[string, () => Promise<unknown>]> = [
      [
        'inject with dedupe (displaces r0)',
        () => s.inject(task.id, { id: 'r1', body: 'x', dedupeKey: 'k' }),
      ],
      [
        'inject replay (same id and content)',
        () => s.inject(task.id, { id: 'r1', body: 'x', dedupeKey: 'k' }),
      ],
      ['turn boundary, reminders live', () => s.turn(task)],
      ['turn boundary, nothing pending', () => s.turn(idle)],
      ['list page (first page)', () => s.list(task.id, { pageSize: 2 })],
      [
        'list page (live only, after a token)',
        () => s.list(task.id, { pageSize: 2, liveOnly: true, pageToken: 'cjE6Mg' }),
      ],
      ['cancel (purges the oldest final over the cap)', () => s.cancel(task.id, 'c2')],
      ['task end (R27)', () => s.end(task, TaskState.TASK_STATE_COMPLETED)],
      ['sweep (R35)', () => store.sweep(Date.now() + 10 * 3600_000)],
    ];
    const result: OperationPlans[] = [];
    for (const [operation, run] of operations) {
      recording = [];
      await run();
      const statements: PlannedStatement[] = [];
      for (const q of recording) {
        if (!/^\s*(select|insert|update|delete|with)/i.test(q.sql)) continue;
        statements.push({
          sql: q.sql,
          plan: await explain(db, database.dialect, q.sql, q.parameters),
        });
      }
      result.push({ operation, statements });
    }
    recording = undefined;
    return result;
  } finally {
    await db.destroy();
  }
}

async function explain(
  db: Kysely<unknown>,
  dialect: ReminderDialect,
  text: string,
  parameters: readonly unknown[],
): Promise<string[]> {
  // The statement as issued, bound parameters included (PostgreSQL plans
  // EXPLAIN with them through the extended protocol).
  if (dialect === 'postgres') {
    const { rows } = await db.executeQuery<{ 'QUERY PLAN': string }>(
      CompiledQuery.raw(`explain (costs off) ${text}`, [...parameters]),
    );
    return rows.map((r) => r['QUERY PLAN']);
  }
  const { rows } = await db.executeQuery<{ detail: string }>(
    CompiledQuery.raw(`explain query plan ${text}`, [...parameters]),
  );
  return rows.map((r) => r.detail);
}

/** Bulk rows in the same shape the store writes, then fresh planner statistics. */
async function seed(db: Kysely<unknown>, dialect: ReminderDialect): Promise<void> {
  const tasks = [];
  for (let t = 0; t < SEED_TASKS; t += 1)
    tasks.push(`('', 'seed', 'seed-${t}', ${SEED_RECORDS_PER_TASK})`);
  await sql`insert into a2a_reminder_tasks (tenant, owner, task_id, last_seq) values ${sql.raw(tasks.join(', '))}`.execute(
    db,
  );
  const records = `
    insert into a2a_reminders (task_key, id, seq, final_seq, state, body, dedupe_key, ttl_turns,
      role_hint, source, metadata, create_time_ms, end_time_ms, first_turn, turns_surfaced,
      displaced_by, accepted_displaced_ids, accepted_task_state)
    select t.task_key, 'r' || n.i, n.i, case when n.i % 4 = 0 then null else n.i end,
      case when n.i % 4 = 0 then 'PENDING' else 'EXPIRED' end, 'seeded body',
      case when n.i % 2 = 0 then 'key-' || n.i else '' end, 1, '', '', null, 0, null, null, 0,
      null, '[]', 'TASK_STATE_WORKING'
    from a2a_reminder_tasks t cross join numbers n`;
  const numbers =
    dialect === 'postgres'
      ? `with numbers(i) as (select generate_series(1, ${SEED_RECORDS_PER_TASK}))`
      : `with recursive numbers(i) as (select 1 union all select i + 1 from numbers where i < ${SEED_RECORDS_PER_TASK})`;
  await sql.raw(`${numbers} ${records}`).execute(db);
  // Replicas' event log (R52): a batch per record, all younger than the log's
  // retention, as the once-a-minute sweep leaves it.
  const events = `
    insert into a2a_reminder_events (task_key, seq, batch, create_time_ms)
    select t.task_key, n.i, ${dialect === 'postgres' ? "'\\x00'::bytea" : "x'00'"}, ${Date.now()} - n.i * 1000
    from a2a_reminder_tasks t cross join numbers n`;
  await sql.raw(`${numbers} ${events}`).execute(db);
  await sql`analyze`.execute(db);
}
