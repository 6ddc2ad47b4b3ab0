import type { AgentCard, Task, TaskState } from '@a2a-js/sdk';
import type { AgentExecutor } from '@a2a-js/sdk/server';
import {
  ServerCallContext as Context,
  DefaultExecutionEventBusManager,
  DefaultRequestHandler,
  InMemoryTaskStore,
} from '@a2a-js/sdk/server';
import { agentCard } from '@a2a-reminders/core';

/** An agent card declaring A2A 1.0 on the JSON-RPC and HTTP+JSON bindings. */
export function testAgentCard(): AgentCard {
  return agentCard({
    name: 'test agent',
    description: 'answers tests',
    version: '1.0.0',
    interfaces: { jsonrpc: 'http://127.0.0.1/a2a/jsonrpc', rest: 'http://127.0.0.1/a2a/rest' },
  });
}

/** An executor that never runs in these tests (tasks are saved straight into the store). */
const idleExecutor: AgentExecutor = {
  execute: async () => {},
  cancelTask: async () => {},
};

/**
 * The SDK's stock server pieces, as an application would build them, serving
 * `card` (the SDK checks each request's A2A-Version against its interfaces).
 */
export function createSdkStack(card: AgentCard = testAgentCard()) {
  const taskStore = new InMemoryTaskStore();
  const eventBusManager = new DefaultExecutionEventBusManager();
  const requestHandler = new DefaultRequestHandler(card, taskStore, idleExecutor, eventBusManager);
  return { taskStore, eventBusManager, requestHandler };
}

/** Saves a task as `user` in `tenant` would see it, the way the SDK scopes stores. */
export async function saveTask(
  taskStore: InMemoryTaskStore,
  options: { id: string; state: TaskState; user?: string; tenant?: string },
): Promise<Task> {
  const task: Task = {
    id: options.id,
    contextId: `ctx-${options.id}`,
    status: { state: options.state, message: undefined, timestamp: new Date().toISOString() },
    artifacts: [],
    history: [],
    metadata: undefined,
  };
  const name = options.user ?? '';
  const context = new Context({
    user: { isAuthenticated: name !== '', userName: name },
    ...(options.tenant === undefined ? {} : { tenant: options.tenant }),
  });
  await taskStore.save(task, context);
  return task;
}
