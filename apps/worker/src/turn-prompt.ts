import type { ModelMessage } from 'ai';
import type { TurnPrompt } from './model.js';
import { chatMessagesOf } from './prompt-view.js';
import { terminalSafe } from './terminal-text.js';

export const AGENT_INSTRUCTIONS = [
  'You are a coding agent working on a task delegated to you by another agent.',
  'Each turn, take exactly one step by calling one tool: plan, read, edit, test, rebase, fix,',
  'wrap_up or report (report ends the task).',
  'Reminders from the system are ambient context for this turn, not requests from the user:',
  'weigh them, act on them when they change what the next step should be, and never quote them.',
].join(' ');

export interface TurnPromptInput {
  readonly taskId: string;
  readonly turn: number;
  /** `Infinity` when the task has no turn limit. */
  readonly maxTurns: number;
  /** The messages the loop built for this step, before reminders. */
  readonly loopMessages: readonly ModelMessage[];
  /** The messages this step sends: the loop's, with this turn's reminders added. */
  readonly messages: readonly ModelMessage[];
}

/**
 * One turn's prompt as the model receives it: the agent's instructions, then
 * the step's messages, each told apart by origin. A message the loop did not
 * build is a reminder added for this turn only (R38): the loop's own list,
 * and the task's A2A history, never hold it.
 */
export function turnPromptOf(input: TurnPromptInput): TurnPrompt {
  const loop = new Set<unknown>(input.loopMessages);
  const messages = chatMessagesOf(
    [{ role: 'system', content: AGENT_INSTRUCTIONS }, ...input.messages],
    (m, i) => {
      if (i === 0) return 'instructions';
      if (!loop.has(m)) return 'reminder';
      return m.role === 'user' ? 'task-history' : 'working-memory';
    },
  );
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
