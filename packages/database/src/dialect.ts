import type { Kysely } from 'kysely';
import { PostgresIntrospector, SqliteIntrospector } from 'kysely';

/** The engines this package runs on, each tested against the real server or library. */
export type ReminderDialect = 'postgres' | 'sqlite';

/**
 * The engine behind a Kysely instance, told by its introspector as the SDK's
 * own database stores do, so a caller's custom dialect built on Kysely's
 * PostgreSQL or SQLite parts is recognised too.
 */
export function dialectOf<DB>(db: Kysely<DB>): ReminderDialect {
  const introspector: object = db.introspection;
  if (introspector instanceof PostgresIntrospector) return 'postgres';
  if (introspector instanceof SqliteIntrospector) return 'sqlite';
  // A second copy of kysely in node_modules fails instanceof; its class names still match.
  const name = introspector.constructor?.name ?? '<unknown>';
  if (name === 'PostgresIntrospector') return 'postgres';
  if (name === 'SqliteIntrospector') return 'sqlite';
  throw new Error(
    `@a2a-reminders/database supports PostgreSQL and SQLite. This Kysely instance uses ${name}, which is neither.`,
  );
}
