import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
} from '@ai-sdk/provider';
import { STEP_TOOL_NAMES, stepKindOfTool } from './coding-tools.js';
import type { Step, StepKind, TurnPrompt } from './model.js';
import { chatMessagesOf } from './prompt-view.js';

/**
 * A deterministic stand-in for a language model, so the worker runs offline
 * with no keys (issue 5), as an AI SDK language model (issue 14): each call
 * answers with one call of a step tool (coding-tools.ts). It reads only what
 * a real model would read, the prompt's roles and text, and reacts visibly
 * to ambient context:
 * - a budget or cost signal makes it wrap up now and report on the next turn;
 * - an upstream merge (or a request to rebase) inserts a rebase step;
 * - a failing CI run inserts a fix step;
 * otherwise it walks a fixed plan: plan, read, then edit and test in turn.
 * A tool the call requires (`toolChoice`) is the tool it calls: the worker
 * requires `report` on the last allowed turn.
 */
export class ScriptedLanguageModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3';
  readonly provider = 'a2a-reminders';
  readonly modelId = 'scripted';
  readonly supportedUrls = {};
  #calls = 0;

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const step = scriptedStep(turnPromptOfCall(options));
    this.#calls += 1;
    return {
      content: [
        {
          type: 'tool-call',
          toolCallId: `scripted-${this.#calls}`,
          toolName: STEP_TOOL_NAMES[step.kind],
          input: JSON.stringify({ summary: step.summary }),
        },
      ],
      finishReason: { unified: 'tool-calls', raw: undefined },
      usage: NO_USAGE,
      warnings: [],
    };
  }

  async doStream(options: LanguageModelV3CallOptions) {
    const { content, finishReason, usage } = await this.doGenerate(options);
    const parts: LanguageModelV3StreamPart[] = [
      { type: 'stream-start', warnings: [] },
      ...content.flatMap((c): LanguageModelV3StreamPart[] => (c.type === 'tool-call' ? [c] : [])),
      { type: 'finish', finishReason, usage },
    ];
    return {
      stream: new ReadableStream<LanguageModelV3StreamPart>({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      }),
    };
  }
}

const NO_USAGE = {
  inputTokens: {
    total: undefined,
    noCache: undefined,
    cacheRead: undefined,
    cacheWrite: undefined,
  },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
};

/**
 * The scripted model's reading of one call: the prompt's messages, its turn
 * (one past the steps taken so far), and a turn limit that is reached when
 * the call requires `report`.
 */
function turnPromptOfCall(options: LanguageModelV3CallOptions): TurnPrompt {
  const messages = chatMessagesOf(options.prompt, (m, i) =>
    m.role === 'user' ? 'task-history' : i === 0 ? 'instructions' : 'working-memory',
  );
  const turn = messages.filter((m) => m.role === 'assistant').length + 1;
  const required =
    options.toolChoice?.type === 'tool' ? stepKindOfTool(options.toolChoice.toolName) : undefined;
  return {
    taskId: '',
    turn,
    maxTurns: required === 'report' ? turn : Number.POSITIVE_INFINITY,
    messages,
  };
}

const BASE_KINDS: readonly StepKind[] = ['plan', 'read', 'edit', 'test'];

/** The pure decision of {@link ScriptedLanguageModel}, exported for tests. */
export function scriptedStep(prompt: TurnPrompt): Step {
  const previous = previousSteps(prompt);
  const last = previous.at(-1);
  const signals = ambientSignals(prompt);
  const subject = taskSubject(prompt);

  if (last === 'wrap-up' || prompt.turn >= prompt.maxTurns) {
    return { kind: 'report', summary: `Report: work on "${subject}" is committed`, done: true };
  }
  if (signals.budget && !previous.includes('wrap-up')) {
    return {
      kind: 'wrap-up',
      summary: 'Budget nearly spent: stop new work, keep what passes, commit it',
      done: false,
    };
  }
  if (signals.rebase && last !== 'rebase') {
    return {
      kind: 'rebase',
      summary: 'Rebase the branch onto the updated main before going on',
      done: false,
    };
  }
  if (signals.ciFailure && last !== 'fix') {
    return { kind: 'fix', summary: 'Fix what CI reported, then re-run those tests', done: false };
  }
  return baseStep(previous.filter((k) => BASE_KINDS.includes(k)).length, subject);
}

function baseStep(index: number, subject: string): Step {
  if (index === 0) return { kind: 'plan', summary: `Plan the change: ${subject}`, done: false };
  if (index === 1)
    return { kind: 'read', summary: 'Read the code the change touches', done: false };
  // After plan and read, edit and test alternate: pass 1 is steps 2 and 3.
  const pass = Math.floor(index / 2);
  return index % 2 === 0
    ? { kind: 'edit', summary: `Edit the implementation (pass ${pass})`, done: false }
    : { kind: 'test', summary: `Run the test suite (pass ${pass})`, done: false };
}

/** The loop's working memory holds one assistant message per past step, `kind: summary`. */
function previousSteps(prompt: TurnPrompt): StepKind[] {
  const kinds: StepKind[] = [];
  for (const m of prompt.messages) {
    if (m.role !== 'assistant') continue;
    const kind = /^([a-z-]+):/.exec(m.content)?.[1];
    if (kind !== undefined && isStepKind(kind)) kinds.push(kind);
  }
  return kinds;
}

const STEP_KINDS: readonly string[] = [...BASE_KINDS, 'rebase', 'fix', 'wrap-up', 'report'];

function isStepKind(value: string): value is StepKind {
  return STEP_KINDS.includes(value);
}

interface AmbientSignals {
  readonly budget: boolean;
  readonly rebase: boolean;
  readonly ciFailure: boolean;
}

/**
 * Ambient context is what the prompt says outside the task's own messages:
 * system messages after the first (the agent's instructions),
 * and `<system-reminder>` blocks wherever they sit.
 */
function ambientSignals(prompt: TurnPrompt): AmbientSignals {
  const texts: string[] = [];
  prompt.messages.forEach((m, i) => {
    if (i > 0 && m.role === 'system') texts.push(m.content);
    else {
      for (const block of m.content.matchAll(
        /<system-reminder\b[^>]*>([\s\S]*?)<\/system-reminder>/g,
      )) {
        texts.push(block[1] ?? '');
      }
    }
  });
  const any = (re: RegExp) => texts.some((t) => re.test(t));
  return {
    budget: any(/\b(budget|cost|spend|spent)\b/i),
    rebase: any(/\b(rebase|merged)\b/i),
    ciFailure: texts.some((t) => /\bCI\b/.test(t) && /\b(fail\w*|red|broken|errors?)\b/i.test(t)),
  };
}

/** The first line of the task's first user message, shortened. */
function taskSubject(prompt: TurnPrompt): string {
  const text = prompt.messages.find((m) => m.role === 'user')?.content ?? 'the task';
  const line = text.split('\n')[0]?.trim() ?? '';
  const subject = line.length > 0 ? line : 'the task';
  return subject.length > 60 ? `${subject.slice(0, 57)}...` : subject;
}
