import { readFileSync } from 'node:fs';
import { renderReminderBlock } from '@a2a-reminders/core';
import { textAnswer, toolCallAnswer } from '@a2a-reminders/test-support';
import { generateText, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { modelForTask, runToolLoop } from './testing/readme-example.js';
import { runningTask } from './testing/running-task.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const example = readFileSync(new URL('./testing/readme-example.ts', import.meta.url), 'utf8');

const reminder = { id: 'pr', body: 'PR 1234 merged; rebase first.', source: 'ci' };
const block = renderReminderBlock({ ...reminder, roleHint: '' });
const reminded = (prompt: readonly { role: string; content: unknown }[]) =>
  prompt.filter((m) => m.role === 'system' && m.content === block).length;

describe('README', () => {
  it('shows the code that this test runs, verbatim', () => {
    const region = example.split('// README:start\n')[1]?.split('// README:end')[0];
    expect(region).toBeDefined();
    expect(readme).toContain(`\`\`\`ts\n${region}\`\`\``);
  });

  it('runs: the tool loop gives the reminder to its first step only', async () => {
    const task = await runningTask();
    await task.inject({ ...reminder, ttlTurns: 1 });
    let calls = 0;
    const model = new MockLanguageModelV3({
      doGenerate: async () => {
        calls += 1;
        return calls === 1 ? toolCallAnswer('c1', 'rebase', {}) : textAnswer('rebased');
      },
    });
    const tools = {
      rebase: tool({ inputSchema: z.object({}), execute: async () => 'rebased onto main' }),
    };
    const text = await runToolLoop(task.service, task.requestContext, task.bus, model, tools);
    expect(text).toBe('rebased');
    expect(model.doGenerateCalls.map((c) => reminded(c.prompt))).toEqual([1, 0]);
  });

  it('runs: the wrapped model gives the reminder to the next call only', async () => {
    const task = await runningTask();
    const inner = new MockLanguageModelV3({ doGenerate: async () => textAnswer('ok') });
    const model = modelForTask(task.service, task.requestContext, task.bus, inner);
    await task.inject({ ...reminder, ttlTurns: 1 });
    await generateText({ model, prompt: 'Fix it.' });
    await generateText({ model, prompt: 'Fix it.' });
    expect(inner.doGenerateCalls.map((c) => reminded(c.prompt))).toEqual([1, 0]);
  });
});
