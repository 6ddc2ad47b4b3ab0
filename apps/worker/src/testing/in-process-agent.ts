import type { SendMessageRequest, StreamResponse } from '@a2a-js/sdk';
import { Role } from '@a2a-js/sdk';
import {
  DefaultExecutionEventBusManager,
  DefaultRequestHandler,
  InMemoryTaskStore,
  ServerCallContext,
} from '@a2a-js/sdk/server';
import type { ReminderService } from '@a2a-reminders/core';
import {
  createReminderService,
  TASK_REMINDERS_EXTENSION_URI,
  textMessage,
} from '@a2a-reminders/core';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { buildAgentCard } from '../agent-card.js';
import { CodingAgentExecutor } from '../coding-agent-executor.js';
import type { TurnPrompt } from '../model.js';
import { ScriptedLanguageModel } from '../scripted-model.js';

/** Runs before the model answers a turn; the turn waits for it, so a test can act "during" a turn. */
export type TurnHook = (prompt: TurnPrompt, signal: AbortSignal) => Promise<void> | void;

/** Every turn's prompt as the model receives it, and a hook per turn (the executor's onPrompt). */
export class TurnHooks {
  readonly prompts: TurnPrompt[] = [];
  readonly hooks = new Map<number, TurnHook>();

  readonly onPrompt = async (prompt: TurnPrompt, signal: AbortSignal): Promise<void> => {
    this.prompts.push(prompt);
    await this.hooks.get(prompt.turn)?.(prompt, signal);
  };
}

export interface InProcessAgent {
  readonly handler: DefaultRequestHandler;
  readonly reminders: ReminderService;
  /** Every turn's prompt as the model received it, and hooks run before the model answers. */
  readonly turns: TurnHooks;
  context(): ServerCallContext;
}

/** The worker's agent behind an SDK request handler, with no transport in between. */
export function inProcessAgent(
  maxTurns: number,
  languageModel: LanguageModelV3 = new ScriptedLanguageModel(),
): InProcessAgent {
  const taskStore = new InMemoryTaskStore();
  const eventBusManager = new DefaultExecutionEventBusManager();
  const reminders = createReminderService({ taskStore, eventBusManager });
  const turns = new TurnHooks();
  const agent = new CodingAgentExecutor({
    reminders,
    model: languageModel,
    maxTurns,
    turnMs: 0,
    onPrompt: turns.onPrompt,
  });
  const card = buildAgentCard({
    httpBaseUrl: 'http://127.0.0.1:1',
    grpcAddress: '127.0.0.1:2',
    reminders,
  });
  const handler = new DefaultRequestHandler(
    card,
    reminders.wrapTaskStore(taskStore),
    reminders.wrapExecutor(agent),
    eventBusManager,
  );
  return {
    handler,
    reminders,
    turns,
    // Reminder rpcs require the extension to be activated (spec: Activation).
    context: () =>
      new ServerCallContext({
        requestedVersion: '1.0',
        requestedExtensions: [TASK_REMINDERS_EXTENSION_URI],
      }),
  };
}

export function delegation(text: string): SendMessageRequest {
  const message = textMessage(Role.ROLE_USER, { taskId: '', contextId: '' }, text);
  return { tenant: '', message, configuration: undefined, metadata: undefined };
}

/** Drains a stream into an array. */
export async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const items: StreamResponse[] = [];
  for await (const item of stream) items.push(item);
  return items;
}
