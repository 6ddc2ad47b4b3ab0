import type { AgentCard } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import type { ClosableReminderClient } from '@a2a-reminders/client';
import {
  connectToA2AAgent,
  createReminderClient,
  fetchAgentCard,
  findAgentInterface,
} from '@a2a-reminders/client';
import type { ReminderClient } from '@a2a-reminders/core';
import { ExchangeLog } from './exchange-log.js';
import type { KitBinding, KitTarget } from './kit-target.js';
import { notObservable } from './not-observable.js';
import type { Endpoints } from './raw-wire.js';
import { remoteTaskDriver } from './remote-task-driver.js';
import type { Wire } from './wire.js';

/**
 * The wire of a kit case (issue 15): the agent under test reached over one
 * binding of its card, with our reminder client and the stock SDK client, a
 * task driver speaking the test-agent contract, and every call recorded.
 */
export async function startRemoteWire(
  binding: KitBinding,
  target: KitTarget,
  log: ExchangeLog = new ExchangeLog(),
): Promise<Wire> {
  const card = await fetchAgentCard(target.cardUrl);
  const a2a = await connectToA2AAgent(card, { binding, headers: target.headers });
  const closers: Array<() => void> = [() => a2a.close()];
  const tenant = findAgentInterface(card, binding)?.tenant;
  const reminderClient = (headers: Record<string, string>): ReminderClient => {
    const client = createReminderClient(binding, {
      url: a2a.endpoint,
      headers: { ...target.headers, ...headers },
      ...(tenant === undefined ? {} : { tenant }),
    });
    closers.push(() => client.close());
    return recorded(client, binding, log);
  };
  const client = reminderClient({});
  const sdk = recordedSdk(a2a.client, binding, log);
  // The driver records what it sends itself; its polling would only bury the case's own calls.
  const tasks = remoteTaskDriver(a2a.client, {
    binding,
    headers: target.headers,
    reminders: client,
    log,
  });
  return {
    arm: binding,
    get stack(): never {
      return notObservable(
        "the case reads the agent's own stack (its stores, executor or servers)",
      );
    },
    get reminders(): never {
      return notObservable("the case calls the agent's reminder service in process");
    },
    card,
    endpoints: endpointsOf(card, target.cardUrl, log),
    client,
    clientWith: reminderClient,
    sdk,
    tasks,
    async [Symbol.asyncDispose]() {
      try {
        await tasks.close();
      } finally {
        for (const close of closers) close();
      }
    },
  };
}

/** The card's interfaces as raw requests need them; one the card lacks is not observable. */
function endpointsOf(card: AgentCard, cardUrl: string, log: ExchangeLog): Endpoints {
  const url = (binding: KitBinding): string =>
    findAgentInterface(card, binding)?.url ??
    notObservable(
      `the case sends raw requests to the ${binding} interface, which the card does not list`,
    );
  return {
    cardUrl,
    log,
    get jsonRpcUrl() {
      return url('jsonrpc');
    },
    get restUrl() {
      return url('rest');
    },
    get grpcTarget() {
      // grpc-js takes host:port; a card may list the address with a scheme.
      return url('grpc').replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
    },
  };
}

function recorded(
  client: ClosableReminderClient,
  binding: string,
  log: ExchangeLog,
): ReminderClient {
  return {
    injectTaskReminder: (request, options) =>
      log.record('InjectTaskReminder', binding, request, () =>
        client.injectTaskReminder(request, options),
      ),
    listTaskReminders: (request, options) =>
      log.record('ListTaskReminders', binding, request, () =>
        client.listTaskReminders(request, options),
      ),
    cancelTaskReminder: (request, options) =>
      log.record('CancelTaskReminder', binding, request, () =>
        client.cancelTaskReminder(request, options),
      ),
  };
}

/** Unary calls of the stock client are recorded; streams are recorded where the driver opens them. */
const UNARY: Readonly<Record<string, string>> = {
  sendMessage: 'SendMessage',
  getTask: 'GetTask',
  cancelTask: 'CancelTask',
  listTasks: 'ListTasks',
};

function recordedSdk(sdk: Client, binding: string, log: ExchangeLog): Client {
  return new Proxy(sdk, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      const name = typeof property === 'string' ? UNARY[property] : undefined;
      if (name === undefined || typeof value !== 'function') return value;
      return (request: unknown, ...rest: unknown[]) =>
        log.record(name, binding, request, () =>
          (value as (...args: unknown[]) => Promise<unknown>).call(target, request, ...rest),
        );
    },
  });
}
