// Every export here is public API of @a2a-reminders/database.

export type { OpenDatabaseOptions, ParsedDatabaseUrl } from './connect.js';
export { openReminderDatabase, parseDatabaseUrl } from './connect.js';
export { DatabaseReminderStore } from './database-reminder-store.js';
export type { ReminderDialect } from './dialect.js';
export { dialectOf } from './dialect.js';
export type { ReminderMigrationState } from './migrations.js';
export {
  migrateReminderStore,
  reminderMigrationStatus,
  reminderMigrator,
  reminderStoreMigrations,
  revertReminderStore,
} from './migrations.js';
export type {
  DbInteger,
  ReminderDatabase,
  ReminderRow,
  ReminderTaskRow,
  ReminderTaskTable,
} from './schema.js';
export {
  REMINDER_MIGRATIONS_LOCK_TABLE,
  REMINDER_MIGRATIONS_TABLE,
  REMINDER_TASKS_TABLE,
  REMINDERS_TABLE,
} from './schema.js';
