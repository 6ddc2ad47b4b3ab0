import { renderReminderBlock } from '@a2a-reminders/core';
import { ReminderState } from '@a2a-reminders/proto';
import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import type { ModelMessage } from 'ai';
import { generateText, simulateReadableStream, streamText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { reminderMiddleware } from './reminder-middleware.js';
import { runningTask, textAnswer } from './testing/running-task.js';

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
    const before = structuredClone(conversation);

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
    // The caller's conversation is never written to (R38).
    expect(conversation).toEqual(before);

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
});
