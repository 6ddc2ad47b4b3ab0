// Every export here is public API of @a2a-reminders/test-support (private; tests only).

export type { RecordedChatRequest, WireChatMessage } from './chat-completions-server.js';
export { ChatCompletionsServer, wireText } from './chat-completions-server.js';
export { headerUserBuilder, listen } from './express-server.js';
export type { RecordedCall } from './fake-reminders.js';
export { fakeReminders, sampleError } from './fake-reminders.js';
export type {
  Ext4FileSystem,
  Ext4Options,
  FsckResult,
  MountedTmpfs,
  TmpfsOptions,
} from './file-system-faults.js';
export {
  canMount,
  fillFileSystem,
  mountExt4,
  mountTmpfs,
  unmount,
} from './file-system-faults.js';
export type {
  BindingServer,
  BindingServerOptions,
  HttpBindingArm,
  HttpBindingOptions,
} from './http-binding-arm.js';
export { bindingServersPerTest, startBindingServer } from './http-binding-arm.js';
export type { ReadmeUnderTest, WireErrorChecks } from './http-binding-suites.js';
export {
  boomOnRequest,
  captureErrorLog,
  cleanErrorText,
  describeClientPages,
  describeCoreRoundTrip,
  describeErrorRoundTrip,
  describeReadme,
  describeReminderClient,
  failureOf,
  fallbackServersPerTest,
  recordingContextBuilder,
  seedPages,
  seedReminderPages,
} from './http-binding-suites.js';
export { textAnswer, toolCallAnswer } from './model-answers.js';
export type {
  BackendFilter,
  PostgresCluster,
  PostgresClusterOptions,
  PostgresStopMode,
} from './postgres-cluster.js';
export { startPostgresCluster } from './postgres-cluster.js';
export { createSdkStack, saveTask, testAgentCard } from './sdk-stack.js';
export type { SpecErrorRow } from './spec-error-table.js';
export { SPEC_URL, specErrorRow, specErrorTable } from './spec-error-table.js';
export type { SqliteLock } from './sqlite-locker.js';
export { lockSqliteFromAnotherProcess } from './sqlite-locker.js';
export type {
  ProxyConnection,
  ProxyConnectionState,
  ProxyFilter,
  TcpProxy,
  TcpProxyOptions,
} from './tcp-proxy.js';
export { startTcpProxy } from './tcp-proxy.js';
export type { WorkingTask } from './working-task.js';
export { activatedContext, workingTask } from './working-task.js';
