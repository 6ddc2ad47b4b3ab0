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
import { buildAgentCard } from '../agent-card.js';
import { CodingAgentExecutor } from '../coding-agent-executor.js';
import type { Model, Step, TurnPrompt } from '../model.js';
import { scriptedStep } from '../scripted-model.js';

/** Runs before the model answers a turn; the turn waits for it, so a test can act "during" a turn. */
export type TurnHook = (
  prompt: TurnPrompt,
  signal: AbortSignal | undefined,
) => Promise<void> | void;

/** The scripted model, with a hook per turn and a record of every prompt. */
export class HookedModel implements Model {
  readonly prompts: TurnPrompt[] = [];
  readonly hooks = new Map<number, TurnHook>();

  async nextStep(prompt: TurnPrompt, signal?: AbortSignal): Promise<Step> {
    this.prompts.push(prompt);
    await this.hooks.get(prompt.turn)?.(prompt, signal);
    return scriptedStep(prompt);
  }
}

export interface InProcessAgent {
  readonly handler: DefaultRequestHandler;
  readonly reminders: ReminderService;
  readonly model: HookedModel;
  context(): ServerCallContext;
}

/** The worker's agent behind an SDK request handler, with no transport in between. */
export function inProcessAgent(maxTurns: number): InProcessAgent {
  const taskStore = new InMemoryTaskStore();
  const eventBusManager = new DefaultExecutionEventBusManager();
  const reminders = createReminderService({ taskStore, eventBusManager });
  const model = new HookedModel();
  const agent = new CodingAgentExecutor({ reminders, model, maxTurns, turnMs: 0 });
  const card = buildAgentCard({
    httpBaseUrl: 'http://127.0.0.1:1',
    grpcAddress: '127.0.0.1:2',
    reminders,
  });
  const handler = new DefaultRequestHandler(
    card,
    taskStore,
    reminders.wrapExecutor(agent),
    eventBusManager,
  );
  return {
    handler,
    reminders,
    model,
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
