import type { Task } from '@a2a-js/sdk';
import { Role, TaskState } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import {
  AgentEvent,
  DefaultExecutionEventBusManager,
  DefaultRequestHandler,
  InMemoryTaskStore,
} from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { agentCard, textMessage } from '@a2a-reminders/core';
import { listen } from '@a2a-reminders/test-support';
import express from 'express';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TestDelegation } from './test-delegation.js';

// A test agent that knows nothing of reminders: the run goes there all the
// same, with no reminder forwarded and nothing of the extension sent.

/** The task an execution announces first, WORKING. */
function workingTask(context: RequestContext): Task {
  return {
    id: context.taskId,
    contextId: context.contextId,
    status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: '' },
    history: [context.userMessage],
    artifacts: [],
    metadata: undefined,
  };
}

/** Runs each task at once: a task, then COMPLETED with the test results. */
const stockExecutor: AgentExecutor = {
  execute: async (context: RequestContext, bus: ExecutionEventBus) => {
    bus.publish(AgentEvent.task(workingTask(context)));
    bus.publish(
      AgentEvent.statusUpdate({
        taskId: context.taskId,
        contextId: context.contextId,
        status: {
          state: TaskState.TASK_STATE_COMPLETED,
          message: textMessage(Role.ROLE_AGENT, context, '42 tests passed.'),
          timestamp: new Date().toISOString(),
        },
        metadata: undefined,
      }),
    );
    bus.finished();
  },
  cancelTask: async () => {},
};

/** Never ends a task, and ignores CancelTask: a test agent gone wrong. */
const stuckExecutor: AgentExecutor = {
  execute: async (context: RequestContext, bus: ExecutionEventBus) => {
    bus.publish(AgentEvent.task(workingTask(context)));
    // Never returns: the task's stream stays open whatever a cancel asks.
    await new Promise(() => {});
  },
  cancelTask: async (taskId: string) => {
    cancels.push(`cancel ${taskId}`);
  },
};
const cancels: string[] = [];

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function stockAgent(executor: AgentExecutor = stockExecutor) {
  const app = express();
  const headers: Array<Record<string, unknown>> = [];
  app.use((req, _res, next) => {
    headers.push({ ...req.headers });
    next();
  });
  const server = await listen(app);
  closers.push(server.close);
  const card = agentCard({
    name: 'stock test agent',
    description: 'runs tests; no reminders',
    version: '1.0.0',
    interfaces: { jsonrpc: `${server.url}/a2a/jsonrpc` },
    capabilities: {
      streaming: true,
      pushNotifications: false,
      extensions: [],
      extendedAgentCard: false,
    },
  });
  const handler = new DefaultRequestHandler(
    card,
    new InMemoryTaskStore(),
    executor,
    new DefaultExecutionEventBusManager(),
  );
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  app.use(
    '/a2a/jsonrpc',
    jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }),
  );
  return { url: server.url, headers };
}

describe('delegating the tests', () => {
  it('runs them on an agent without the extension, forwarding nothing and activating nothing', async () => {
    const agent = await stockAgent();
    const forwardReminders = vi.fn();
    const delegation = new TestDelegation(
      { url: agent.url, binding: 'jsonrpc' },
      { forwardReminders },
    );
    const started = vi.fn();
    const run = await delegation.run(
      {} as RequestContext,
      {} as ExecutionEventBus,
      'Run the test suite',
      new AbortController().signal,
      started,
    );
    expect(run).toMatchObject({
      finalState: 'TASK_STATE_COMPLETED',
      finalText: '42 tests passed.',
      forwarded: false,
    });
    expect(started).toHaveBeenCalledWith(run.subTaskId, 'stock test agent');
    expect(forwardReminders).not.toHaveBeenCalled();
    const calls = agent.headers.filter((h) => h['content-type'] !== undefined);
    expect(calls).not.toHaveLength(0);
    for (const h of calls) expect(h['a2a-extensions']).toBeUndefined();
  });

  it('cancelling the task cancels the sub-task, and stops reading it after the grace period if it never ends', async () => {
    const agent = await stockAgent(stuckExecutor);
    const delegation = new TestDelegation(
      { url: agent.url, binding: 'jsonrpc' },
      { forwardReminders: vi.fn() },
      200,
    );
    const abort = new AbortController();
    const run = delegation.run(
      {} as RequestContext,
      {} as ExecutionEventBus,
      'Run the test suite',
      abort.signal,
      () => abort.abort(new Error('task cancelled')),
    );
    await expect(run).rejects.toThrow();
    expect(cancels.filter((c) => c.startsWith('cancel ')).length).toBeGreaterThan(0);
  });
});
