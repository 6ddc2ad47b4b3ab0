import { afterAll } from 'vitest';
import { dropSharedDatabase } from './stack-store.js';

// Setup file (vitest.config.ts): each test file drops the database its
// stacks used (SQLite file or PostgreSQL database), so runs never leave or
// share rows.
afterAll(async () => {
  await dropSharedDatabase();
});
