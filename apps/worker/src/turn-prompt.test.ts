import { reminderSystemMessages } from '@a2a-reminders/ai-sdk';
import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { terminalSafe } from './terminal-text.js';
import { formatPromptForLog, turnPromptOf } from './turn-prompt.js';

/** Every character of the log that would act on a terminal rather than print (newline aside). */
const acting = (text: string) =>
  [...text.matchAll(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu)].map((m) => m[0]).filter((c) => c !== '\n');

describe('--log-prompts output', () => {
  it('prints caller text with escapes for every character that would act on a terminal', () => {
    const loopMessages: ModelMessage[] = [
      {
        role: 'user',
        content: 'fix it\u001b[31mRED\u001b[0m\rOVERWRITTEN \u202eevil\u2028next\u0085',
      },
      {
        role: 'assistant',
        content: [
          {
            type: 'tool-call',
            toolCallId: 'c1',
            toolName: 'plan',
            input: { summary: 'Plan the change: fix it\u001b[2J' },
          },
        ],
      },
    ];
    const reminders = reminderSystemMessages([
      {
        id: 'r1',
        body: 'budget 👩\u200d💻\tspent',
        source: 'monitor',
        roleHint: '',
        dedupeKey: '',
        metadata: undefined,
        turnsRemaining: 0,
        firstSurfacing: true,
      },
    ]);
    const prompt = turnPromptOf({
      taskId: 'task\u001b]0;pwned\u0007',
      turn: 1,
      maxTurns: 3,
      loopMessages,
      messages: [...loopMessages, ...reminders],
    });
    expect(prompt.messages.map((m) => [m.role, m.origin])).toEqual([
      ['system', 'instructions'],
      ['user', 'task-history'],
      ['assistant', 'working-memory'],
      ['system', 'reminder'],
    ]);
    const log = formatPromptForLog(prompt);
    expect(acting(log)).toEqual(['\u200d', '\t']);
    expect(log).toContain('--- prompt: task task\\x1b]0;pwned\\x07 turn 1/3 ---');
    expect(log).toContain(
      '  fix it\\x1b[31mRED\\x1b[0m\\x0dOVERWRITTEN \\u202eevil\\u2028next\\x85',
    );
    expect(log).toContain('  plan: Plan the change: fix it\\x1b[2J');
    // Printable text, newlines between lines, tabs and emoji joiners are kept as they are.
    expect(log).toContain('budget 👩\u200d💻\tspent');
  });

  it('terminalSafe escapes lone surrogates and non-BMP format characters, and nothing printable', () => {
    expect(terminalSafe('a\ud800b\u{e0041}c')).toBe('a\\ud800b\\u{e0041}c');
    expect(terminalSafe('plain text, accents é, 中文, emoji 🤖\ttab')).toBe(
      'plain text, accents é, 中文, emoji 🤖\ttab',
    );
  });
});
