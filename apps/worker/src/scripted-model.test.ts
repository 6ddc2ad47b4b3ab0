import type {
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  LanguageModelV3ToolChoice,
} from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import type { ChatMessage, Step, StepKind, TurnPrompt } from './model.js';
import { ScriptedLanguageModel, scriptedStep } from './scripted-model.js';
import { AGENT_INSTRUCTIONS } from './turn-prompt.js';

const TASK = 'Add retry with exponential backoff to the HTTP client';

function prompt(
  turn: number,
  previous: readonly StepKind[],
  ambient: readonly ChatMessage[] = [],
  maxTurns = 12,
): TurnPrompt {
  return {
    taskId: 't1',
    turn,
    maxTurns,
    messages: [
      { role: 'system', content: AGENT_INSTRUCTIONS, origin: 'instructions' },
      { role: 'user', content: TASK, origin: 'task-history' },
      ...previous.map(
        (kind): ChatMessage => ({
          role: 'assistant',
          content: `${kind}: x`,
          origin: 'working-memory',
        }),
      ),
      ...ambient,
    ],
  };
}

const block = (body: string): ChatMessage => ({
  role: 'system',
  content: `<system-reminder source="monitor">\n${body}\n</system-reminder>`,
  origin: 'reminder',
});

/** Runs the model turn by turn with no reminders and returns the kinds it chose. */
function walk(maxTurns: number): Step[] {
  const steps: Step[] = [];
  for (let turn = 1; turn <= maxTurns; turn++) {
    const step = scriptedStep(
      prompt(
        turn,
        steps.map((s) => s.kind),
        [],
        maxTurns,
      ),
    );
    steps.push(step);
    if (step.done) break;
  }
  return steps;
}

describe('scripted model', () => {
  it('walks plan, read, then edit and test in turn, and reports on the last turn', () => {
    const steps = walk(7);
    expect(steps.map((s) => s.kind)).toEqual([
      'plan',
      'read',
      'edit',
      'test',
      'edit',
      'test',
      'report',
    ]);
    expect(steps.map((s) => s.done)).toEqual([false, false, false, false, false, false, true]);
    expect(steps[0]?.summary).toContain(TASK);
  });

  it('inserts a rebase step when an upstream merge reaches the prompt', () => {
    const step = scriptedStep(
      prompt(3, ['plan', 'read'], [block('Upstream PR #4521 merged into main.')]),
    );
    expect(step.kind).toBe('rebase');
    expect(step.done).toBe(false);
  });

  it('does not rebase twice while the same reminder is still surfaced on the next turn', () => {
    const step = scriptedStep(
      prompt(4, ['plan', 'read', 'rebase'], [block('Upstream PR #4521 merged into main.')]),
    );
    expect(step.kind).toBe('edit');
  });

  it('resumes its plan where it left off after an inserted step', () => {
    const step = scriptedStep(prompt(4, ['plan', 'read', 'rebase']));
    expect(step).toMatchObject({ kind: 'edit', summary: 'Edit the implementation (pass 1)' });
  });

  it('wraps up on a cost-budget reminder and reports on the next turn', () => {
    const budget = block('Cost monitor: 90% of the $5.00 budget is spent.');
    const wrap = scriptedStep(prompt(5, ['plan', 'read', 'edit', 'test'], [budget]));
    expect(wrap).toMatchObject({ kind: 'wrap-up', done: false });
    const report = scriptedStep(prompt(6, ['plan', 'read', 'edit', 'test', 'wrap-up']));
    expect(report).toMatchObject({ kind: 'report', done: true });
  });

  it('puts the budget before a rebase when both arrive on one turn', () => {
    const step = scriptedStep(
      prompt(3, ['plan', 'read'], [block('Upstream PR #4521 merged.'), block('Budget 90% spent.')]),
    );
    expect(step.kind).toBe('wrap-up');
  });

  it('inserts a fix step for a failing CI run', () => {
    const step = scriptedStep(
      prompt(4, ['plan', 'read', 'edit'], [block('CI run 88: 2 tests failing in retry.test.ts')]),
    );
    expect(step.kind).toBe('fix');
  });

  it('ignores a green CI run', () => {
    const step = scriptedStep(prompt(4, ['plan', 'read', 'edit'], [block('CI run 89 passed.')]));
    expect(step.kind).toBe('test');
  });

  it('reads a system message without the reminder framing as ambient context too', () => {
    const plain: ChatMessage = {
      role: 'system',
      content: 'Please rebase: main moved.',
      origin: 'reminder',
    };
    expect(scriptedStep(prompt(3, ['plan', 'read'], [plain])).kind).toBe('rebase');
  });

  it('does not take the task text or its own instructions as a signal', () => {
    const p = prompt(3, ['plan', 'read']);
    const withBudgetTask: TurnPrompt = {
      ...p,
      messages: p.messages.map((m) =>
        m.role === 'user' ? { ...m, content: 'Rebase the cost budget code after merged PRs' } : m,
      ),
    };
    expect(scriptedStep(withBudgetTask).kind).toBe('edit');
  });
});

describe('ScriptedLanguageModel', () => {
  const instructions = { role: 'system' as const, content: AGENT_INSTRUCTIONS };
  const task = { role: 'user' as const, content: [{ type: 'text' as const, text: TASK }] };
  const done = (id: string, toolName: string, summary: string): LanguageModelV3Message[] => [
    {
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: id, toolName, input: { summary } }],
    },
    {
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: id, toolName, output: { type: 'text', value: 'done' } },
      ],
    },
  ];
  const call = (prompt: LanguageModelV3Prompt, toolChoice?: LanguageModelV3ToolChoice) =>
    new ScriptedLanguageModel().doGenerate({
      prompt,
      ...(toolChoice === undefined ? {} : { toolChoice }),
    });

  it('answers each call with one step tool call, reading its earlier steps off the prompt', async () => {
    const first = await call([instructions, task]);
    expect(first.content).toEqual([
      expect.objectContaining({
        type: 'tool-call',
        toolName: 'plan',
        input: JSON.stringify({ summary: `Plan the change: ${TASK}` }),
      }),
    ]);
    const third = await call([
      instructions,
      task,
      ...done('a', 'plan', 'x'),
      ...done('b', 'read', 'y'),
      { role: 'system', content: block('Budget 90% spent.').content },
    ]);
    expect(third.content).toEqual([expect.objectContaining({ toolName: 'wrap_up' })]);
    expect(third.finishReason.unified).toBe('tool-calls');
  });

  it('calls the tool a call requires: report on the last turn', async () => {
    const answer = await call([instructions, task, ...done('a', 'plan', 'x')], {
      type: 'tool',
      toolName: 'report',
    });
    expect(answer.content).toEqual([
      expect.objectContaining({
        toolName: 'report',
        input: JSON.stringify({ summary: `Report: work on "${TASK}" is committed` }),
      }),
    ]);
  });
});
