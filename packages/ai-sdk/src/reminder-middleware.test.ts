import { renderReminderBlock } from '@a2a-reminders/core';
import { ReminderState } from '@a2a-reminders/proto';
import { textAnswer } from '@a2a-reminders/test-support';
import type { LanguageModelV3Prompt, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { APICallError } from '@ai-sdk/provider';
import type { ModelMessage } from 'ai';
import { generateText, simulateReadableStream, streamText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { reminderMiddleware } from './reminder-middleware.js';
import { runningTask } from './testing/running-task.js';

const merged = { id: 'pr-merged', body: 'PR 1234 merged; rebase before retrying.', source: 'ci' };
const block = renderReminderBlock({ ...merged, roleHint: '' });

const streamed: LanguageModelV3StreamPart[] = [
  { type: 'text-start', id: 't' },
  { type: 'text-delta', id: 't', delta: 'ok' },
  { type: 'text-end', id: 't' },
  {
    type: 'finish',
    finishReason: { unified: 'stop', raw: 'stop' },
    usage: {
      inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 1, text: 1, reasoning: undefined },
    },
  },
];

describe('reminderMiddleware', () => {
  it('makes every model call, generate or stream, one turn with that turn’s reminders (R19, R20, R37)', async () => {
    const task = await runningTask();
    const inner = new MockLanguageModelV3({
      doGenerate: async () => textAnswer('ok'),
      doStream: async () => ({ stream: simulateReadableStream({ chunks: streamed }) }),
    });
    const model = wrapLanguageModel({ model: inner, middleware: reminderMiddleware(task.turns) });
    const conversation: ModelMessage[] = [
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: 'Fix the failing build.' },
    ];

    await generateText({ model, messages: conversation }); // turn 1: nothing live
    await task.inject({ ...merged, ttlTurns: 2 });
    await generateText({ model, messages: conversation }); // turn 2
    const stream = streamText({ model, messages: conversation }); // turn 3
    expect(await stream.text).toBe('ok');
    await generateText({ model, messages: conversation }); // turn 4: expired

    const prompts = [...inner.doGenerateCalls.map((c) => c.prompt)];
    prompts.splice(2, 0, inner.doStreamCalls[0]?.prompt ?? []);
    const base = [
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: [{ type: 'text', text: 'Fix the failing build.' }] },
    ];
    const withBlock = [...base, { role: 'system', content: block }];
    expect(prompts).toEqual([base, withBlock, withBlock, base]);

    const records = await task.list();
    expect(records.map((r) => [r.state, r.firstTurn])).toEqual([[ReminderState.EXPIRED, 2]]);
  });

  it('places reminders after the leading system messages with position after-system', async () => {
    const task = await runningTask();
    const inner = new MockLanguageModelV3({ doGenerate: async () => textAnswer('ok') });
    const model = wrapLanguageModel({
      model: inner,
      middleware: reminderMiddleware(task.turns, { position: 'after-system' }),
    });
    await task.inject({ ...merged, ttlTurns: 1 });
    await generateText({ model, system: 'You are a coding agent.', prompt: 'Fix it.' });
    expect(inner.doGenerateCalls[0]?.prompt).toEqual([
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'system', content: block },
      { role: 'user', content: [{ type: 'text', text: 'Fix it.' }] },
    ]);
  });

  it('never writes to the prompt it is given (R38)', async () => {
    const task = await runningTask();
    const inner = new MockLanguageModelV3({ doGenerate: async () => textAnswer('ok') });
    const model = wrapLanguageModel({ model: inner, middleware: reminderMiddleware(task.turns) });
    await task.inject({ ...merged, ttlTurns: 1 });
    const prompt: LanguageModelV3Prompt = Object.freeze([
      Object.freeze({ role: 'user', content: [{ type: 'text', text: 'Fix it.' }] }),
    ]) as LanguageModelV3Prompt;
    await model.doGenerate({ prompt });
    expect(prompt).toHaveLength(1);
    expect(inner.doGenerateCalls[0]?.prompt).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Fix it.' }] },
      { role: 'system', content: block },
    ]);
  });

  it('takes no new turn when the AI SDK retries a failed call (R19)', async () => {
    const task = await runningTask();
    let attempts = 0;
    const inner = new MockLanguageModelV3({
      doGenerate: async () => {
        attempts += 1;
        if (attempts === 1) {
          throw new APICallError({
            message: 'overloaded',
            url: 'http://model.test/v1/chat/completions',
            requestBodyValues: {},
            statusCode: 503,
            isRetryable: true,
          });
        }
        return textAnswer('ok');
      },
    });
    const model = wrapLanguageModel({ model: inner, middleware: reminderMiddleware(task.turns) });
    await task.inject({ ...merged, ttlTurns: 1 });
    await generateText({ model, prompt: 'Fix it.', maxRetries: 1 });
    await generateText({ model, prompt: 'Fix it.' });
    // Both attempts of the first call carry the reminder; the second call is turn 2.
    expect(inner.doGenerateCalls.map((c) => c.prompt.at(-1)?.content)).toEqual([
      block,
      block,
      [{ type: 'text', text: 'Fix it.' }],
    ]);
    const records = await task.list();
    expect(records.map((r) => [r.state, r.firstTurn])).toEqual([[ReminderState.EXPIRED, 1]]);
  });
});
