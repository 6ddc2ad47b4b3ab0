import { parseArgs } from 'node:util';
import type { Kysely } from 'kysely';
import { openReminderDatabase } from '../connect.js';
import {
  migrateReminderStore,
  reminderMigrationStatus,
  revertReminderStore,
} from '../migrations.js';

export const USAGE = `a2a-reminders-db: schema management for @a2a-reminders/database

Usage:
  a2a-reminders-db status    [--url <url>]
  a2a-reminders-db upgrade   [--url <url>]
  a2a-reminders-db downgrade [--url <url>] [base]
  a2a-reminders-db --help

Commands:
  status     List this package's migrations and whether each is applied.
  upgrade    Apply pending migrations, up to the latest. Safe to re-run.
  downgrade  Revert the latest applied migration, or all of them with "base".

Options:
  --url <url>  sqlite:<file> or postgres://user@host:port/database.
               Defaults to the DATABASE_URL environment variable.

The tables are a2a_reminder_tasks and a2a_reminders; the ledger is
a2a_reminders_migrations. The SDK's own tables (tasks, push notification
configs) are migrated by its a2a-db CLI: run both against the same URL to keep
tasks and reminders in one database.`;

/** What the CLI writes to; console by default, a recorder in tests. */
export interface CliOutput {
  log(line: string): void;
  error(line: string): void;
}

/** Runs one CLI invocation; resolves with the process exit code. */
export async function runCli(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  output: CliOutput = console,
): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    output.error(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const [command, target, ...extra] = parsed.positionals;
  if (parsed.values.help || command === 'help') {
    output.log(USAGE);
    return 0;
  }
  if (command !== 'status' && command !== 'upgrade' && command !== 'downgrade') {
    output.error(
      `${command === undefined ? 'No command.' : `Unknown command "${command}".`}\n\n${USAGE}`,
    );
    return 2;
  }
  const allowed = command === 'downgrade' ? [undefined, 'base'] : [undefined];
  if (!allowed.includes(target) || extra.length > 0) {
    output.error(
      `Unexpected argument "${[target, ...extra].join(' ')}" for ${command}.\n\n${USAGE}`,
    );
    return 2;
  }
  const url = parsed.values.url ?? env.DATABASE_URL;
  if (url === undefined || url === '') {
    output.error('No database URL. Pass --url <url> or set DATABASE_URL.');
    return 2;
  }
  let db: Kysely<unknown>;
  try {
    db = await openReminderDatabase(url, { poolSize: 1 });
  } catch (error) {
    output.error((error as Error).message);
    return 1;
  }
  try {
    if (command === 'status') {
      for (const m of await reminderMigrationStatus(db)) {
        output.log(
          `${m.name}  ${m.executedAt === undefined ? 'pending' : `applied ${m.executedAt.toISOString()}`}`,
        );
      }
    } else if (command === 'upgrade') {
      const applied = await migrateReminderStore(db);
      output.log(applied.length === 0 ? 'up to date' : `applied ${applied.join(', ')}`);
    } else {
      const reverted = await revertReminderStore(db, target === 'base' ? 'base' : 'previous');
      output.log(reverted.length === 0 ? 'nothing to revert' : `reverted ${reverted.join(', ')}`);
    }
    return 0;
  } catch (error) {
    output.error(error instanceof Error ? error.message : String(error));
    return 1;
  } finally {
    await db.destroy().catch(() => {});
  }
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      url: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
