import type { AgentCard } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { createReminderClient, findAgentInterface } from '@a2a-reminders/client';
import type { ReminderClient, ReminderService } from '@a2a-reminders/core';
import type { Arm } from './arms.js';
import { SDK_BINDING_OF } from './arms.js';
import { createDirectReminderClient } from './direct-client.js';
import type { Endpoints } from './raw-wire.js';
import type { Stack, StackOptions } from './stack.js';
import { startStack } from './stack.js';
import type { TaskDriver } from './task-driver.js';
import { taskDriver } from './task-driver.js';

/**
 * What a case gets on one arm: a real stack, our client for the arm, and the
 * stock SDK client. As the kit (issue 15) a wire reaches an agent under test
 * instead, and `stack` and `reminders` throw NotObservable: a case that needs
 * them cannot be checked from outside.
 */
export interface Wire extends AsyncDisposable {
  readonly arm: Arm;
  readonly stack: Stack;
  readonly reminders: ReminderService;
  /** The agent card as served. */
  readonly card: AgentCard;
  /** Where raw requests go (harness/raw-wire.ts). */
  readonly endpoints: Endpoints;
  /** Our ReminderClient for the arm (core in process on `direct`). */
  readonly client: ReminderClient;
  /** A second ReminderClient for the arm, with client-wide headers (e.g. another caller). */
  clientWith(headers: Record<string, string>): ReminderClient;
  /** A stock @a2a-js/sdk Client (ClientFactory) on the arm's binding (JSON-RPC for `direct`). */
  readonly sdk: Client;
  readonly tasks: TaskDriver;
}

function reminderClient(
  arm: Arm,
  stack: Stack,
  headers: Record<string, string>,
  closers: Array<() => void>,
): ReminderClient {
  switch (arm) {
    case 'direct':
      return createDirectReminderClient({
        reminders: stack.reminders,
        agentCard: stack.card,
        headers,
      });
    default: {
      // The arm's interface as the served card lists it, as a client would read it.
      const url = findAgentInterface(stack.card, arm)?.url;
      if (url === undefined) throw new Error(`the stack's card lists no ${arm} interface`);
      const client = createReminderClient(arm, { url, headers });
      closers.push(() => client.close());
      return client;
    }
  }
}

/** Starts a stack and wires the arm's clients to it; dispose closes clients, streams and servers. */
export async function startWire(arm: Arm, options: StackOptions = {}): Promise<Wire> {
  const stack = await startStack(options);
  const closers: Array<() => void> = [];
  try {
    const sdk = await stack.sdkClient(SDK_BINDING_OF[arm]);
    const tasks = taskDriver(stack, sdk);
    return {
      arm,
      stack,
      reminders: stack.reminders,
      card: stack.card,
      endpoints: stack,
      client: reminderClient(arm, stack, {}, closers),
      clientWith: (headers) => reminderClient(arm, stack, headers, closers),
      sdk,
      tasks,
      async [Symbol.asyncDispose]() {
        try {
          await tasks.closeStreams();
        } finally {
          for (const close of closers) close();
          await stack.close();
        }
      },
    };
  } catch (error) {
    for (const close of closers) close();
    await stack.close();
    throw error;
  }
}
