// Every export here is public API of @a2a-reminders/database.

export type { OpenDatabaseOptions, ParsedDatabaseUrl } from './connect.js';
export {
  DEFAULT_STATEMENT_TIMEOUT_MS,
  openReminderDatabase,
  parseDatabaseUrl,
} from './connect.js';
export { DatabaseReminderStore } from './database-reminder-store.js';
export type { ReminderDialect } from './dialect.js';
export { dialectOf } from './dialect.js';
export type { EndAbandonedTaskOptions } from './end-abandoned-task.js';
export { endAbandonedTask } from './end-abandoned-task.js';
export { EVENT_CHANNEL, EVENT_LOG_RETENTION_MS } from './event-channel.js';
export { refuseFollowUpsElsewhere } from './follow-up-guard.js';
export type { GuardedTaskStoreOptions } from './guarded-task-store.js';
export { GuardedTaskStore, LeaseLostError } from './guarded-task-store.js';
export type { LeaseStanding, TaskLeaseKeeperOptions } from './lease-keeper.js';
export { TaskLeaseKeeper, UNSAVED_REASON } from './lease-keeper.js';
export type { ReminderMigrationState } from './migrations.js';
export {
  migrateReminderStore,
  reminderMigrationStatus,
  reminderMigrator,
  reminderStoreMigrations,
  revertReminderStore,
} from './migrations.js';
export type { PostgresChangeSignalOptions } from './postgres-change-signal.js';
export { LISTEN_APPLICATION_NAME, PostgresChangeSignal } from './postgres-change-signal.js';
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
export { migrateSdkPushConfigTable, migrateSdkTaskTable } from './sdk-migrations.js';
export { isStoreUnavailable, storeUnavailable } from './store-errors.js';
export type { ClaimedTaskLease } from './task-leases.js';
export { TaskLeases } from './task-leases.js';
