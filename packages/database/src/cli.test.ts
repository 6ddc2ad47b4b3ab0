import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './cli/run.js';
import type { ReminderDialect } from './dialect.js';
import type { TestDatabase } from './test-database.js';
import { createTestDatabase } from './test-database.js';

function recorder() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    output: { log: (l: string) => out.push(l), error: (l: string) => err.push(l) },
  };
}

async function cli(argv: string[], env: Record<string, string> = {}) {
  const r = recorder();
  const code = await runCli(argv, env, r.output);
  return { code, out: r.out, err: r.err.join('\n') };
}

describe.each<ReminderDialect>(['sqlite', 'postgres'])('a2a-reminders-db on %s', (dialect) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(dialect, { migrate: false });
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('reports, applies, re-applies and reverts the migrations', async () => {
    const url = database.url;
    expect(await cli(['status', '--url', url])).toMatchObject({
      code: 0,
      out: [
        '0001_create_reminder_tables  pending',
        '0002_create_replica_tables  pending',
        '0003_add_forwarding_columns  pending',
      ],
    });
    expect(await cli(['upgrade'], { DATABASE_URL: url })).toMatchObject({
      code: 0,
      out: [
        'applied 0001_create_reminder_tables, 0002_create_replica_tables, 0003_add_forwarding_columns',
      ],
    });
    expect(await cli(['upgrade', '--url', url])).toMatchObject({ code: 0, out: ['up to date'] });
    const status = await cli(['status', '--url', url]);
    expect(status.out[0]).toMatch(/^0001_create_reminder_tables {2}applied \d{4}-/);
    expect(status.out[1]).toMatch(/^0002_create_replica_tables {2}applied \d{4}-/);
    expect(status.out[2]).toMatch(/^0003_add_forwarding_columns {2}applied \d{4}-/);
    // One step back reverts only the latest; "base" reverts the rest.
    expect(await cli(['downgrade', '--url', url])).toMatchObject({
      code: 0,
      out: ['reverted 0003_add_forwarding_columns'],
    });
    expect(await cli(['downgrade', 'base', '--url', url])).toMatchObject({
      code: 0,
      out: ['reverted 0002_create_replica_tables, 0001_create_reminder_tables'],
    });
    expect(await cli(['downgrade', '--url', url])).toMatchObject({
      code: 0,
      out: ['nothing to revert'],
    });
    // Up again, so the tables exist as the store needs them.
    expect((await cli(['upgrade', '--url', url])).code).toBe(0);
  });
});

describe('a2a-reminders-db usage', () => {
  it.each([
    [[], 2, 'No command.'],
    [['migrate'], 2, 'Unknown command "migrate"'],
    [['upgrade', 'now', '--url', 'sqlite::memory:'], 2, 'Unexpected argument "now"'],
    [['status'], 2, 'No database URL'],
    [['status', '--url', 'mysql://localhost/x'], 1, 'Unsupported database URL'],
    [['status', '--bogus'], 2, "Unknown option '--bogus'"],
  ])('refuses %j with exit code %i', async (argv, code, message) => {
    const result = await cli(argv);
    expect(result.code).toBe(code);
    expect(result.err).toContain(message);
  });

  it('prints its usage for --help', async () => {
    const result = await cli(['--help']);
    expect(result.code).toBe(0);
    expect(result.out.join('\n')).toContain('a2a-reminders-db upgrade');
  });
});
