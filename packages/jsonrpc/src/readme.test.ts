import { readFileSync } from 'node:fs';
import { TaskState } from '@a2a-js/sdk';
import type { AgentExecutor } from '@a2a-js/sdk/server';
import { AgentEvent } from '@a2a-js/sdk/server';
import { reminderErrorCodes } from '@a2a-reminders/core';
import { ReminderState } from '@a2a-reminders/proto';
import { listen, testAgentCard } from '@a2a-reminders/test-support';
import { describe, expect, it } from 'vitest';
import { createJsonRpcReminderClient } from './json-rpc-client.js';
import { post } from './testing/app.js';
import { createAgentApp } from './testing/readme-example.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const example = readFileSync(new URL('./testing/readme-example.ts', import.meta.url), 'utf8');

/** An agent that opens a WORKING task and leaves it open. */
const executor: AgentExecutor = {
  async execute(context, bus) {
    bus.publish(
      AgentEvent.task({
        id: context.taskId,
        contextId: context.contextId,
        status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: undefined },
        artifacts: [],
        history: [context.userMessage],
        metadata: undefined,
      }),
    );
    bus.finished();
  },
  cancelTask: async () => {},
};

describe('README', () => {
  it('shows the mounting code that this test runs, verbatim', () => {
    const region = example.split('// README:start\n')[1]?.split('// README:end')[0];
    expect(region).toBeDefined();
    expect(readme).toContain(`\`\`\`ts\n${region}\`\`\``);
  });

  it('lists every row of the error table', () => {
    for (const code of reminderErrorCodes) {
      expect(readme).toMatch(new RegExp(`\\| \`${code}\` +\\|`));
    }
  });

  it('runs: a stock SendMessage creates a task, the client injects a reminder into it', async () => {
    const server = await listen(createAgentApp(testAgentCard(), executor));
    try {
      const endpoint = `${server.url}/a2a/jsonrpc`;
      const sent = await post(
        endpoint,
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'SendMessage',
          params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
        }),
      );
      const taskId = (sent.json.result as { task: { id: string } }).task.id;

      const reminders = createJsonRpcReminderClient({
        baseUrl: endpoint,
        headers: { authorization: 'Bearer token' },
      });
      const { record } = await reminders.injectTaskReminder({
        taskId,
        reminder: {
          id: 'budget-80',
          body: 'Budget 80% used; wrap up.',
          ttlTurns: 3,
          dedupeKey: 'budget',
        },
      });
      expect(record?.state).toBe(ReminderState.PENDING);
      expect(record?.taskId).toBe(taskId);
    } finally {
      await server.close();
    }
  });
});
