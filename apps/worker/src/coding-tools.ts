import type { Tool } from 'ai';
import { tool } from 'ai';
import { z } from 'zod';
import type { Step, StepKind } from './model.js';

/**
 * The tool name of each step kind. Tool names are identifiers to most
 * providers, so `wrap-up` is `wrap_up` on the wire.
 */
export const STEP_TOOL_NAMES: Readonly<Record<StepKind, string>> = {
  plan: 'plan',
  read: 'read',
  edit: 'edit',
  test: 'test',
  rebase: 'rebase',
  fix: 'fix',
  'wrap-up': 'wrap_up',
  report: 'report',
};

const DESCRIPTIONS: Readonly<Record<StepKind, string>> = {
  plan: 'Plan the change before touching code.',
  read: 'Read the code the change touches.',
  edit: 'Edit the implementation.',
  test: 'Run the test suite.',
  rebase: 'Rebase the branch onto the updated main branch.',
  fix: 'Fix what a failing test or CI run reported.',
  'wrap-up': 'Stop new work and commit what passes, when time or budget runs out.',
  report: 'Report the finished work; this ends the task.',
};

/** The step kind a tool name stands for, if any. */
export function stepKindOfTool(name: string): StepKind | undefined {
  for (const [kind, toolName] of Object.entries(STEP_TOOL_NAMES)) {
    if (toolName === name) return kind as StepKind;
  }
  return undefined;
}

/**
 * The coding agent's tools, one per step kind, each taking a one-line
 * summary. `onStep` carries out the step (the worker publishes it as the
 * task's progress) and answers what the tool returns to the model.
 */
export function codingTools(onStep: (step: Step) => Promise<string>): Record<string, Tool> {
  const tools: Record<string, Tool> = {};
  for (const [kind, name] of Object.entries(STEP_TOOL_NAMES) as Array<[StepKind, string]>) {
    tools[name] = tool({
      description: DESCRIPTIONS[kind],
      inputSchema: z.object({
        summary: z.string().describe('One line: what this step does.'),
      }),
      execute: ({ summary }) => onStep({ kind, summary, done: kind === 'report' }),
    });
  }
  return tools;
}
