// The snippet of README.md, verbatim between the markers (readme.test.ts checks and runs it).
// README:start
import type { ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { reminderMiddleware, reminderPrepareStep, reminderTurns } from '@a2a-reminders/ai-sdk';
import type { ReminderService } from '@a2a-reminders/core';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { LanguageModel, Tool } from 'ai';
import { generateText, stepCountIs, wrapLanguageModel } from 'ai';

/** Inside your AgentExecutor's execute(): the AI SDK's tool loop, one turn per step. */
export async function runToolLoop(
  reminders: ReminderService,
  requestContext: RequestContext,
  eventBus: ExecutionEventBus,
  model: LanguageModel,
  tools: Record<string, Tool>,
): Promise<string> {
  const { text } = await generateText({
    model,
    tools,
    system: 'You are a coding agent. Take one step per turn.',
    prompt: 'Fix the failing build.',
    stopWhen: stepCountIs(10),
    // Each step is a turn boundary; its reminders go into that step's prompt only.
    prepareStep: reminderPrepareStep(reminderTurns(reminders, requestContext, eventBus)),
  });
  return text;
}

/** A runtime that calls the model itself: every call of this model is one turn. */
export function modelForTask(
  reminders: ReminderService,
  requestContext: RequestContext,
  eventBus: ExecutionEventBus,
  model: LanguageModelV3,
) {
  return wrapLanguageModel({
    model,
    middleware: reminderMiddleware(reminderTurns(reminders, requestContext, eventBus)),
  });
}
// README:end
