import { TaskState } from '@a2a-js/sdk';
import type { Binding } from '@a2a-reminders/client';
import { connectToAgent, delegationRequest } from '@a2a-reminders/client';
import { messageText, renderReminderBlock } from '@a2a-reminders/core';
import type { RecordedChatRequest } from '@a2a-reminders/test-support';
import { ChatCompletionsServer, wireText } from '@a2a-reminders/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SpawnedWorker } from './testing/spawn-main.js';
import { exitOf, spawnMain } from './testing/spawn-main.js';

// The worker process on a real OpenAI-compatible endpoint (issue 14):
// `--model-url` and `--model`, the key from the environment, and what each
// chat-completions request carries while reminders come and go.

const TURNS = 5;
const API_KEY = 'test-key-not-a-flag';

let endpoint: ChatCompletionsServer;
let worker: SpawnedWorker;

beforeAll(async () => {
  endpoint = await ChatCompletionsServer.start();
  worker = await spawnMain(
    [
      ...['--port', '0', '--grpc-port', '0', '--store', 'memory'],
      ...['--turns', String(TURNS), '--turn-ms', '0'],
      ...['--model-url', endpoint.baseUrl, '--model', 'recorded-model'],
    ],
    { env: { A2A_REMINDERS_MODEL_API_KEY: API_KEY } },
  );
});

afterAll(async () => {
  worker.child.kill('SIGTERM');
  expect(await exitOf(worker.child)).toBe(0);
  await endpoint.close();
});

/** The messages of `role` in a request, as text. */
const textsOf = (request: RecordedChatRequest, role: string) =>
  request.body.messages.filter((m) => m.role === role).map(wireText);

async function untilCompleted(agent: Awaited<ReturnType<typeof connectToAgent>>, id: string) {
  for (;;) {
    const task = await agent.client.getTask(
      { tenant: '', id, historyLength: 100 },
      agent.requestOptions(),
    );
    const state = task.status?.state;
    if (state === TaskState.TASK_STATE_COMPLETED || state === TaskState.TASK_STATE_FAILED)
      return task;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('worker --model-url', () => {
  it('names the model it runs on', () => {
    expect(worker.lines).toContain(`MODEL recorded-model at ${endpoint.baseUrl}`);
  });

  it.each<Binding>(['jsonrpc', 'rest', 'grpc'])(
    'over %s: a reminder reaches the next ttlTurns requests as a system message, never a user message or the history',
    async (binding) => {
      const agent = await connectToAgent(worker.ready[1] ?? '', { binding });
      try {
        const taskText = `Fix the flaky retry test (${binding})`;
        const reminder = {
          id: `ci-${binding}`,
          body: `CI run for ${binding}: 2 tests failing in retry.test.ts.`,
          source: 'ci',
          ttlTurns: 2,
        };
        const firstTurn = endpoint.firstTurnOf(taskText);
        const sent = await agent.client.sendMessage(
          delegationRequest(taskText),
          agent.requestOptions(),
        );
        if (!('status' in sent)) throw new Error('the worker answered with a message');
        // Accepted while turn 1 is with the model: surfaced on turns 2 and 3 (R20).
        await firstTurn;
        await agent.reminders.injectTaskReminder({ taskId: sent.id, reminder });
        endpoint.release(taskText);
        const task = await untilCompleted(agent, sent.id);
        expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

        const requests = endpoint.requestsOf(taskText);
        expect(requests).toHaveLength(TURNS);
        const block = renderReminderBlock({ ...reminder, roleHint: '' });
        expect(requests.map((r) => textsOf(r, 'system').filter((t) => t === block).length)).toEqual(
          [0, 1, 1, 0, 0],
        );
        for (const r of requests) {
          expect(JSON.stringify(r.body.messages.filter((m) => m.role !== 'system'))).not.toContain(
            reminder.body,
          );
          expect(r.authorization).toBe(`Bearer ${API_KEY}`);
          expect(r.body.model).toBe('recorded-model');
          expect(r.body.tools?.map((t) => t.function.name)).toContain('report');
        }
        // The loop's memory grows by its own steps only: turn 5 sees four calls and four results.
        expect(requests[TURNS - 1]?.body.messages.map((m) => m.role)).toEqual([
          'system',
          'user',
          ...Array.from({ length: TURNS - 1 }, () => ['assistant', 'tool']).flat(),
        ]);
        // The last allowed turn requires the report tool.
        expect(requests[TURNS - 1]?.body.tool_choice).toEqual({
          type: 'function',
          function: { name: 'report' },
        });
        // R38: the task's A2A history never holds reminder text.
        expect(task.history.map(messageText).join('\n')).not.toContain(reminder.body);
        const records = (await agent.reminders.listTaskReminders({ taskId: sent.id })).reminders;
        expect(records.map((r) => [r.reminder?.id, r.firstTurn])).toEqual([[reminder.id, 2]]);
      } finally {
        agent.close();
      }
    },
  );
});
