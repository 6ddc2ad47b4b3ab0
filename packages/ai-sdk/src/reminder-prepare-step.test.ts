import { renderReminderBlock } from '@a2a-reminders/core';
import { ReminderState } from '@a2a-reminders/proto';
import { textAnswer, toolCallAnswer } from '@a2a-reminders/test-support';
import type { LanguageModelV3Prompt } from '@ai-sdk/provider';
import { generateText, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { reminderPrepareStep } from './reminder-prepare-step.js';
import { runningTask } from './testing/running-task.js';

const INSTRUCTIONS = 'You are a coding agent. Take one step per turn.';

const merged = { id: 'pr-merged', body: 'PR 1234 merged; rebase before retrying.', source: 'ci' };
const budget = { id: 'budget', body: 'Budget 80% used; wrap up.', source: 'billing' };

const block = (r: { id: string; body: string; source: string }) =>
  renderReminderBlock({ ...r, roleHint: '' });

/** Every text a prompt's messages of `role` hold. */
function textsOf(prompt: LanguageModelV3Prompt, role: string): string[] {
  return prompt
    .filter((m) => m.role === role)
    .flatMap((m) =>
      typeof m.content === 'string'
        ? [m.content]
        : m.content.map((p) => ('text' in p ? p.text : JSON.stringify(p))),
    );
}

/** A five-step tool loop whose second tool call injects `during` (if given) mid-loop. */
async function runLoop(during?: () => Promise<unknown>) {
  const task = await runningTask();
  let step = 0;
  const model = new MockLanguageModelV3({
    doGenerate: async () => {
      step += 1;
      return step < 5 ? toolCallAnswer(`call-${step}`, 'run_tests', { step }) : textAnswer('done');
    },
  });
  const tools = {
    run_tests: tool({
      description: 'Runs the test suite.',
      inputSchema: z.object({ step: z.number() }),
      execute: async ({ step: n }) => {
        if (n === 2) await during?.();
        return `tests pass (${n})`;
      },
    }),
  };
  return { task, model, tools };
}

describe('reminderPrepareStep', () => {
  it('puts each turn its reminders in that step only, as system messages, for exactly ttlTurns steps (R20, R37, R38)', async () => {
    let injectBudget = async () => {};
    const { task, model, tools } = await runLoop(() => injectBudget());
    injectBudget = async () => {
      await task.inject({ ...budget, ttlTurns: 1, roleHint: 'user' });
    };
    await task.inject({ ...merged, ttlTurns: 2, roleHint: 'developer' });

    const result = await generateText({
      model,
      tools,
      system: INSTRUCTIONS,
      prompt: 'Fix the failing build.',
      stopWhen: stepCountIs(6),
      prepareStep: reminderPrepareStep(task.turns),
    });

    expect(result.text).toBe('done');
    const prompts = model.doGenerateCalls.map((c) => c.prompt);
    expect(prompts).toHaveLength(5);
    // The first step's whole prompt: instructions, the task, then its reminder.
    expect(prompts[0]).toEqual([
      { role: 'system', content: INSTRUCTIONS },
      { role: 'user', content: [{ type: 'text', text: 'Fix the failing build.' }] },
      { role: 'system', content: block(merged) },
    ]);
    // Which reminder each step's system messages carry, after the instructions.
    const surfaced = prompts.map((p) => textsOf(p, 'system').slice(1));
    expect(surfaced).toEqual([
      [block(merged)],
      [block(merged)],
      // Accepted during step 2's tool call: surfaced from the step after, once.
      [block(budget)],
      [],
      [],
    ]);
    // Never in a user message, whatever the roleHint; never in the loop's own messages.
    for (const p of prompts) {
      expect(textsOf(p, 'user').join('\n')).not.toContain('system-reminder');
      expect(textsOf(p, 'assistant').join('\n')).not.toContain('system-reminder');
      expect(textsOf(p, 'tool').join('\n')).not.toContain('system-reminder');
    }
    const kept = JSON.stringify(result.response.messages);
    expect(kept).not.toContain('system-reminder');
    expect(kept).not.toContain(merged.body);
    expect(kept).not.toContain(budget.body);
    // The loop's history grows by its own messages only: step 5 sees 4 calls and 4 results.
    expect(prompts[4]?.filter((m) => m.role === 'assistant')).toHaveLength(4);
    expect(prompts[4]?.filter((m) => m.role === 'tool')).toHaveLength(4);

    // Each step was one turn boundary: both reminders ran their course.
    const records = await task.list();
    expect(records.map((r) => [r.reminder?.id, r.state, r.firstTurn])).toEqual([
      ['pr-merged', ReminderState.EXPIRED, 1],
      ['budget', ReminderState.EXPIRED, 3],
    ]);
    expect(task.batches().map((b) => b.map((e) => e.event.case))).toEqual([
      ['emitted'],
      ['expired', 'emitted'],
      ['expired'],
    ]);
  });

  it('places reminders after the leading system messages with position after-system', async () => {
    const { task, model, tools } = await runLoop();
    await task.inject({ ...merged, ttlTurns: 1 });
    await generateText({
      model,
      tools,
      system: INSTRUCTIONS,
      prompt: 'Fix the failing build.',
      stopWhen: stepCountIs(2),
      prepareStep: reminderPrepareStep(task.turns, { position: 'after-system' }),
    });
    expect(model.doGenerateCalls[0]?.prompt).toEqual([
      { role: 'system', content: INSTRUCTIONS },
      { role: 'system', content: block(merged) },
      { role: 'user', content: [{ type: 'text', text: 'Fix the failing build.' }] },
    ]);
    expect(textsOf(model.doGenerateCalls[1]?.prompt ?? [], 'system')).toEqual([INSTRUCTIONS]);
  });

  it("runs the agent's own prepareStep first and adds the reminders to the messages it chose", async () => {
    const { task, model, tools } = await runLoop();
    await task.inject({ ...merged, ttlTurns: 1 });
    await generateText({
      model,
      tools,
      prompt: 'Fix the failing build.',
      stopWhen: stepCountIs(1),
      prepareStep: reminderPrepareStep(task.turns, {
        prepareStep: ({ messages }) => ({
          toolChoice: 'required',
          messages: [{ role: 'user', content: 'Summarized: fix the build.' }, ...messages.slice(1)],
        }),
      }),
    });
    const call = model.doGenerateCalls[0];
    expect(call?.toolChoice).toEqual({ type: 'required' });
    expect(call?.prompt).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Summarized: fix the build.' }] },
      { role: 'system', content: block(merged) },
    ]);
  });

  it('leaves a step without reminders exactly as the loop built it', async () => {
    const { task, model, tools } = await runLoop();
    await generateText({
      model,
      tools,
      system: INSTRUCTIONS,
      prompt: 'Fix the failing build.',
      stopWhen: stepCountIs(1),
      prepareStep: reminderPrepareStep(task.turns),
    });
    expect(model.doGenerateCalls[0]?.prompt).toEqual([
      { role: 'system', content: INSTRUCTIONS },
      { role: 'user', content: [{ type: 'text', text: 'Fix the failing build.' }] },
    ]);
    expect(task.batches()).toEqual([]);
  });
});
