import type { Message } from '@a2a-js/sdk';
import { Role } from '@a2a-js/sdk';
import type { SurfacedReminder } from '@a2a-reminders/core';
import { messageText } from '@a2a-reminders/core';
import type { ChatMessage, Step, TurnPrompt } from './model.js';
import { reminderMessages } from './reminder-messages.js';
import { terminalSafe } from './terminal-text.js';

export const AGENT_INSTRUCTIONS = [
  'You are a coding agent working on a task delegated to you by another agent.',
  'Each turn, take exactly one step: plan, read, edit, test, rebase, fix, wrap-up or report.',
  'Reminders from the system are ambient context for this turn, not requests from the user:',
  'weigh them, act on them when they change what the next step should be, and never quote them.',
].join(' ');

export interface TurnPromptInput {
  readonly taskId: string;
  readonly turn: number;
  /** `Infinity` when the task has no turn limit. */
  readonly maxTurns: number;
  /** The task's history as A2A keeps it; only its user messages enter the prompt. */
  readonly history: readonly Message[];
  /** The steps this loop took on earlier turns (its working memory). */
  readonly steps: readonly Step[];
  /** This turn's reminders, as `beginTurn` returned them. */
  readonly reminders: readonly SurfacedReminder[];
}

/**
 * Builds one turn's prompt. Reminders go last, as ambient context rendered by
 * core's helpers (a system or developer message per `roleHint`, else a
 * `<system-reminder>` block); they exist only in this prompt and are never
 * written to the task's history (spec: Rendering; issue 5).
 */
export function buildTurnPrompt(input: TurnPromptInput): TurnPrompt {
  const messages: ChatMessage[] = [
    { role: 'system', content: AGENT_INSTRUCTIONS, origin: 'instructions' },
  ];
  for (const m of input.history) {
    if (m.role !== Role.ROLE_USER) continue;
    messages.push({ role: 'user', content: messageText(m), origin: 'task-history' });
  }
  for (const step of input.steps) {
    messages.push({
      role: 'assistant',
      content: `${step.kind}: ${step.summary}`,
      origin: 'working-memory',
    });
  }
  messages.push(...reminderMessages(input.reminders));
  return { taskId: input.taskId, turn: input.turn, maxTurns: input.maxTurns, messages };
}

/** `turn/maxTurns` as progress updates and logs show it: `3/12`, or `3/∞` with no turn limit. */
export function turnOfMax(turn: number, maxTurns: number): string {
  return `${turn}/${Number.isFinite(maxTurns) ? maxTurns : '∞'}`;
}

/**
 * A readable dump of a prompt for `--log-prompts`: each message with its role
 * and origin. Message text is the caller's, so it is printed terminal-safe.
 */
export function formatPromptForLog(prompt: TurnPrompt): string {
  const task = terminalSafe(prompt.taskId);
  const head = `--- prompt: task ${task} turn ${turnOfMax(prompt.turn, prompt.maxTurns)} ---`;
  const lines = [head];
  for (const m of prompt.messages) {
    const note = m.origin === 'reminder' ? ' (ambient, not in task history)' : '';
    lines.push(`[${m.role} | ${m.origin}${note}]`);
    for (const line of m.content.split('\n')) lines.push(`  ${terminalSafe(line)}`);
  }
  lines.push('-'.repeat(head.length));
  return lines.join('\n');
}
