import type { AgentCard } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import type { ClosableReminderClient } from '@a2a-reminders/client';
import { connectToA2AAgent, createReminderClient, findAgentInterface } from '@a2a-reminders/client';
import type { ReminderClient } from '@a2a-reminders/core';
import { ExchangeLog } from './exchange-log.js';
import type { KitBinding, KitTarget } from './kit-target.js';
import { notObservable } from './not-observable.js';
import type { Endpoints } from './raw-wire.js';
import { fetchCardAsGiven, withPlainGrpcAddresses } from './remote-card.js';
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
  const card = withPlainGrpcAddresses(
    await fetchCardAsGiven(target.cardUrl, target.headers),
    binding,
  );
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
  const sdk = recordedSdk(a2a.client, binding, log, target.headers);
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
    endpoints: endpointsOf(card, target, log),
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

/**
 * The card's interfaces as raw requests need them, with the kit's headers.
 * An interface the card lacks, or one with a tenant (raw requests are
 * written without one), is not observable.
 */
function endpointsOf(card: AgentCard, target: KitTarget, log: ExchangeLog): Endpoints {
  const url = (binding: KitBinding): string => {
    const iface = findAgentInterface(card, binding);
    if (iface === undefined) {
      notObservable(
        `the case sends raw requests to the ${binding} interface, which the card does not list`,
      );
    }
    if ((iface.tenant ?? '') !== '') {
      notObservable(
        `the case sends raw requests without a tenant, and the card's ${binding} interface has tenant ${iface.tenant}`,
      );
    }
    return iface.url;
  };
  return {
    cardUrl: target.cardUrl,
    headers: target.headers,
    log,
    get jsonRpcUrl() {
      return url('jsonrpc');
    },
    get restUrl() {
      return url('rest');
    },
    get grpcTarget() {
      return url('grpc');
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

/** The stock client's calls the kit records; streams are recorded where they are opened. */
const CALLS: Readonly<Record<string, string>> = {
  sendMessage: 'SendMessage',
  getTask: 'GetTask',
  cancelTask: 'CancelTask',
  listTasks: 'ListTasks',
  sendMessageStream: 'SendStreamingMessage',
  resubscribeTask: 'SubscribeToTask',
};

/**
 * The stock client with the kit's headers added to every call's service
 * parameters (a case's own win), and its unary calls recorded.
 */
function recordedSdk(
  sdk: Client,
  binding: string,
  log: ExchangeLog,
  headers: Readonly<Record<string, string>>,
): Client {
  return new Proxy(sdk, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      const name = typeof property === 'string' ? CALLS[property] : undefined;
      if (name === undefined || typeof value !== 'function') return value;
      const call = value as (...args: unknown[]) => unknown;
      return (request: unknown, options?: { serviceParameters?: Record<string, string> }) => {
        const withHeaders = {
          ...options,
          serviceParameters: { ...headers, ...options?.serviceParameters },
        };
        if (property === 'sendMessageStream' || property === 'resubscribeTask') {
          return call.call(target, request, withHeaders);
        }
        return log.record(name, binding, request, () =>
          Promise.resolve(call.call(target, request, withHeaders)),
        );
      };
    },
  });
}
