import { AGENT_CARD_PATH, TaskState } from '@a2a-js/sdk';
import type { AgentExecutor } from '@a2a-js/sdk/server';
import {
  DefaultExecutionEventBusManager,
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
  ServerCallContext,
  UnauthenticatedUser,
} from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { agentCard, reminderAgentExtension, withTaskReminders } from '@a2a-reminders/core';
import { listen, saveTask } from '@a2a-reminders/test-support';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { watchCommand } from './commands.js';
import { until } from './testing/until.js';

// `watch --push` against an agent that stores push configs and never sends a
// notification: push is best-effort (spec §16), so the watch learns the end
// from the task itself, and a worker that stops answering ends it with an error.

/** Whom the worker's calls run as: nobody in particular. */
const caller = new ServerCallContext({ user: new UnauthenticatedUser() });

const idle: AgentExecutor = { execute: async () => {}, cancelTask: async () => {} };

async function silentAgent() {
  const app = express();
  const http = await listen(app);
  const card = withTaskReminders(
    agentCard({
      name: 'silent agent',
      description: 'keeps push configs, sends no notification',
      version: '0.0.0',
      interfaces: { jsonrpc: `${http.url}/a2a/jsonrpc` },
    }),
    { agentExtension: () => reminderAgentExtension() },
  );
  card.capabilities = { ...card.capabilities, pushNotifications: true } as typeof card.capabilities;
  const taskStore = new InMemoryTaskStore();
  const pushStore = new InMemoryPushNotificationStore();
  const handler = new DefaultRequestHandler(
    card,
    taskStore,
    idle,
    new DefaultExecutionEventBusManager(),
    pushStore,
    // No sender: configs are stored, nothing is ever pushed.
  );
  const userBuilder = UserBuilder.noAuthentication;
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: handler }));
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder }));
  await saveTask(taskStore, { id: 'task-1', state: TaskState.TASK_STATE_WORKING });
  return { http, taskStore, pushStore, cardUrl: `${http.url}/${AGENT_CARD_PATH}` };
}

let agent: Awaited<ReturnType<typeof silentAgent>> | undefined;
afterEach(async () => {
  await agent?.http.close().catch(() => {});
});

function watch(cardUrl: string, lines: string[]) {
  return watchCommand(
    {
      kind: 'watch',
      connection: { url: cardUrl, binding: 'jsonrpc', headers: {} },
      tenant: '',
      taskId: 'task-1',
      pushPort: 0,
    },
    (line) => lines.push(line),
  );
}

describe('watch --push on an agent that never notifies', () => {
  it('reads the end off the task, says fates may be missing, and removes its registration', async () => {
    agent = await silentAgent();
    const lines: string[] = [];
    const watching = watch(agent.cardUrl, lines);
    await until(() => lines.some((l) => / push +task task-1 notifies /.test(l)));
    expect(await agent.pushStore.load('task-1', caller)).toHaveLength(1);
    await saveTask(agent.taskStore, { id: 'task-1', state: TaskState.TASK_STATE_COMPLETED });
    await watching;
    expect(lines.at(-1)).toMatch(
      / state +COMPLETED \(read from the task: no notification brought the end; fates may be missing here, `list` shows them all\)$/,
    );
    expect(await agent.pushStore.load('task-1', caller)).toEqual([]);
  });

  it('ends with an error once the worker stops answering', async () => {
    agent = await silentAgent();
    const lines: string[] = [];
    const watching = watch(agent.cardUrl, lines);
    await until(() => lines.some((l) => / notifies /.test(l)));
    await agent.http.close();
    await expect(watching).rejects.toThrow();
  });
});
