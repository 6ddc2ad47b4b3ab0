import type { RawBuilder } from 'kysely';
import { sql } from 'kysely';

/**
 * The live states (R18) as SQL, with literal values rather than bound
 * parameters: SQLite's planner uses a partial index only when the query
 * repeats the index's WHERE term, which a `?` placeholder never does, and
 * PostgreSQL then needs no custom plan to prove the predicate either. The
 * partial indexes of the migration are built from the same text.
 */
export const LIVE_STATES_SQL = "('PENDING', 'ACTIVE')";

/** `state in ('PENDING', 'ACTIVE')`, optionally qualified by a table alias. */
export function isLive(alias?: string): RawBuilder<boolean> {
  const column = alias === undefined ? 'state' : `${alias}.state`;
  return sql<boolean>`${sql.raw(column)} in ${sql.raw(LIVE_STATES_SQL)}`;
}
