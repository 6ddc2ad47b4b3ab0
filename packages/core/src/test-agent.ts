// @a2a-reminders/core/test-agent: the test-agent contract of the conformance
// kit (docs/conformance-kit.md), for agents under test and for the kit.
// Every export here is public API of the subpath.

export type {
  TestAgentAck,
  TestAgentAckReminder,
  TestAgentCommand,
  TestAgentControlCommand,
  TestAgentEndState,
  TestAgentErrorAck,
  TestAgentRunningState,
} from './test-agent-contract.js';
export {
  hasTestAgentMetadata,
  parseTestAgentAck,
  TEST_AGENT_END_STATES,
  TEST_AGENT_METADATA_KEY,
  TEST_AGENT_RUNNING_STATES,
  testAgentAckArtifactId,
  testAgentAckOf,
  testAgentCommandOf,
  testAgentMetadata,
  testAgentTaskState,
} from './test-agent-contract.js';
export type { TestAgentExecutorOptions } from './test-agent-executor.js';
export { TestAgentExecutor } from './test-agent-executor.js';
