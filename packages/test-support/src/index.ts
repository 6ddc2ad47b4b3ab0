// Every export here is public API of @a2a-reminders/test-support (private; tests only).

export { headerUserBuilder, listen } from './express-server.js';
export type { RecordedCall } from './fake-reminders.js';
export { fakeReminders, sampleError } from './fake-reminders.js';
export { createSdkStack, saveTask, testAgentCard } from './sdk-stack.js';
export type { SpecErrorRow } from './spec-error-table.js';
export { SPEC_URL, specErrorRow, specErrorTable } from './spec-error-table.js';
