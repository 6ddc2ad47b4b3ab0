import type { AgentExecutor, RequestContext } from '@a2a-js/sdk/server';
import type { TestAgentExecutor } from '@a2a-reminders/core/test-agent';
import { hasTestAgentMetadata } from '@a2a-reminders/core/test-agent';

/**
 * `--test-agent`: a message carrying the conformance kit's test-agent
 * metadata (a `hold`, or a control message: a new message naming a held task
 * in its metadata), and every follow-up on a task the test agent holds (a
 * `hold` resuming it; anything else fails it), goes to the test agent
 * (docs/conformance-kit.md, "The test-agent contract"); every other message
 * to the worker's own agent, as without the flag.
 */
export function routeTestAgent(testAgent: TestAgentExecutor, agent: AgentExecutor): AgentExecutor {
  return {
    execute: (context, bus) =>
      (startedByTestAgent(testAgent, context) ? testAgent : agent).execute(context, bus),
    cancelTask: (taskId, bus) =>
      (testAgent.hasTask(taskId) ? testAgent : agent).cancelTask(taskId, bus),
  };
}

function startedByTestAgent(testAgent: TestAgentExecutor, context: RequestContext): boolean {
  return (
    hasTestAgentMetadata(context.userMessage) ||
    testAgent.hasTask(context.taskId) ||
    // The stored history opens with the message that started the task, so
    // this holds for the test agent's tasks in a restarted worker too.
    hasTestAgentMetadata(context.task?.history?.[0])
  );
}
