import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReminderDialect } from './dialect.js';
import type { TestDatabase } from './test-database.js';
import { createTestDatabase } from './test-database.js';
import type { OperationPlans } from './testing/query-plans.js';
import { hotQueryPlans } from './testing/query-plans.js';

// Every hot query is an index lookup (issue 9): the plans of the statements
// core's service issues for each hot operation, over a database seeded with
// many tasks' records. `PRINT_PLANS=1` prints them as the package README
// shows them (`npm run plans -w @a2a-reminders/database`).

/** A plan line that reads a whole table. */
const FULL_SCAN: Record<ReminderDialect, RegExp> = {
  sqlite: /^SCAN (a2a_|t\b|r\b)/,
  postgres: /Seq Scan/,
};

function printed(dialect: ReminderDialect, plans: readonly OperationPlans[]): string {
  const out: string[] = [`### ${dialect}`, ''];
  for (const op of plans) {
    out.push(`**${op.operation}**: ${op.statements.length} statements`, '', '```text');
    for (const s of op.statements) {
      out.push(s.sql.replace(/\s+/g, ' ').trim(), ...s.plan.map((line) => `  ${line}`));
    }
    out.push('```', '');
  }
  return out.join('\n');
}

describe.each<ReminderDialect>(['sqlite', 'postgres'])('hot query plans on %s', (dialect) => {
  let database: TestDatabase;
  let plans: OperationPlans[];
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    plans = await hotQueryPlans(database);
    if (process.env.PRINT_PLANS) console.log(printed(dialect, plans));
  }, 120_000);
  afterAll(async () => {
    await database?.drop();
  });

  it('reads no table whole, in any statement of any hot operation', () => {
    const scans = plans.flatMap((op) =>
      op.statements
        .filter((s) => s.plan.some((line) => FULL_SCAN[dialect].test(line.trim())))
        .map((s) => `${op.operation}: ${s.sql}\n${s.plan.join('\n')}`),
    );
    expect(scans).toEqual([]);
    // Each operation ran and issued statements (the check above is not vacuous).
    for (const op of plans) expect(op.statements.length, op.operation).toBeGreaterThan(0);
  });

  it('takes a turn boundary with nothing pending without reading a reminder row', () => {
    const idle = plans.find((op) => op.operation.startsWith('turn boundary, nothing pending'));
    // One indexed read that locks the task row, one indexed write of its turn.
    expect(idle?.statements.map((s) => s.sql.match(/^\s*(\w+)/)?.[1])).toEqual([
      'select',
      'update',
    ]);
    expect(idle?.statements.filter((s) => s.sql.includes('"a2a_reminders"'))).toEqual([]);
  });
});
